// The lobby's 每日复式 card (issue 30): today's challenge with your progress and place, one button for
// your next board (play_event), and yesterday's final standings (the top few and your place), all
// from GET /api/events/daily.

import { button, el } from "./dom.js";
import { t } from "./i18n.js";
import { api, session } from "./net.js";
import { eventHash, nextBoard, percentText, progressLine } from "./eventplay.js";

const TOP = 3; // yesterday's top few
const EVERY_MS = 30000; // the card is read again this often while the lobby shows (and the tab is seen)

/** The card; handlers: {conn, toast, onOpenTable(id, code)}. Its `root` goes in the lobby. */
export class DailyCard {
  constructor(handlers) {
    this.h = handlers;
    this.root = el("div", "panel daily");
    this.root.dataset.role = "daily";
    this.root.append(el("h2", "", t("ev_daily")));
    this.key = null;
    this.timer = setInterval(() => document.hidden || this.refresh(), EVERY_MS);
    this.refresh();
  }

  destroy() {
    clearInterval(this.timer);
  }

  async refresh() {
    let daily;
    try {
      daily = await api("GET", "/api/events/daily");
    } catch {
      return; // offline or not there: the card keeps what it showed
    }
    const key = JSON.stringify(daily);
    if (key === this.key) return; // unchanged: the button stays put under a finger about to tap
    this.key = key;
    this.draw(daily);
  }

  /** Today's view (GET /api/events/{id}'s answer, with `me`: your progress) and yesterday's. */
  draw(daily) {
    const today = daily.today;
    const head = el("h2", "", t("ev_daily"));
    this.root.replaceChildren(head);
    if (!today) {
      this.root.append(el("div", "muted", t("ev_none_today")));
      this.root.append(yesterday(daily.yesterday));
      return;
    }
    const { event } = today;
    head.append(el("span", "spacer"), button("btn small secondary", t("ev_standings"), "event-standings", () => (location.hash = eventHash(event.id))));
    this.root.append(el("div", "muted", t("ev_what")), progressLine(today), nextBoard(today, this.h));
    this.root.append(yesterday(daily.yesterday));
  }
}

/** Yesterday's final standings: the top few, and your place when you are not among them. */
function yesterday(last) {
  const box = el("div", "ev-yesterday");
  box.dataset.role = "daily-yesterday";
  if (!last || !last.standings.length) return box;
  const title = el("div", "ev-sub", t("ev_yesterday"));
  title.append(button("btn small secondary", "›", "yesterday-event", () => (location.hash = eventHash(last.event.id))));
  const list = el("ol", "ev-top");
  for (const s of last.standings.slice(0, TOP)) {
    const li = el("li", s.account_id === (session.account || {}).id ? "me" : "");
    li.value = s.rank;
    li.append(el("span", "ev-name", s.nickname), el("span", "num", percentText(s.percent)));
    list.append(li);
  }
  box.append(title, list);
  const me = last.me;
  if (me && me.rank > TOP) box.append(el("div", "ev-me", t("ev_you_were", { place: me.rank, percent: percentText(me.percent) })));
  return box;
}
