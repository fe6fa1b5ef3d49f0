// The lobby's 每日复式 card (issue 30): today's challenge with your progress and place, one button for
// your next board (play_event), and yesterday's final standings (the top few and your place), all
// from GET /api/events/daily.

import { button, el } from "./dom.js";
import { t } from "./i18n.js";
import { api, session } from "./net.js";
import { eventHash, myStanding, percentText, playNext } from "./eventplay.js";

const TOP = 3; // yesterday's top few
const EVERY_MS = 15000; // the card is read again this often while the lobby shows

/** The card; handlers: {conn, toast, onOpenTable(id, code)}. Its `root` goes in the lobby. */
export class DailyCard {
  constructor(handlers) {
    this.h = handlers;
    this.root = el("div", "panel daily");
    this.root.dataset.role = "daily";
    this.root.append(el("h2", "", t("ev_daily")));
    this.key = null;
    this.timer = setInterval(() => this.refresh(), EVERY_MS);
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

  draw(daily) {
    const me = (session.account || {}).id;
    const event = daily.event;
    const head = el("h2", "", t("ev_daily"));
    this.root.replaceChildren(head);
    if (!event) {
      this.root.append(el("div", "muted", t("ev_none_today")));
      this.root.append(yesterday(daily.yesterday, me));
      return;
    }
    head.append(el("span", "spacer"), button("btn small secondary", t("ev_standings"), "event-standings", () => (location.hash = eventHash(event.id))));
    const standings = daily.standings || [];
    const mine = myStanding(standings, me);
    const played = mine ? mine.boards : 0;
    const progress = el("div", "ev-progress");
    progress.dataset.role = "daily-progress";
    progress.append(el("b", "", t("ev_progress", { n: played, m: event.boards })));
    if (mine) progress.append(el("span", "", ` · ${t("ev_place", { place: mine.place, n: standings.length })} · ${percentText(mine.percent)}`));
    this.root.append(el("div", "muted", t("ev_what")), progress);
    if (played < event.boards) {
      const label = played ? t("ev_play_next", { n: played + 1 }) : t("ev_play_first");
      const play = button("btn ev-play", label, "play-event", () => this.play(event.id, play));
      this.root.append(play, el("div", "muted", t("ev_how", { m: event.boards, bots: t(`bot_${event.bot_level}`) })));
    } else {
      this.root.append(el("div", "ev-done", t("ev_all_done", { m: event.boards })));
    }
    this.root.append(yesterday(daily.yesterday, me));
  }

  async play(eventId, play) {
    play.disabled = true;
    try {
      const table = await playNext(this.h.conn, eventId);
      this.h.onOpenTable(table.id, table.code);
    } catch (error) {
      play.disabled = false;
      this.h.toast(error.message);
    }
  }
}

/** Yesterday's final standings: the top few, and your place when you are not among them. */
function yesterday(last, me) {
  const box = el("div", "ev-yesterday");
  box.dataset.role = "daily-yesterday";
  const standings = last ? last.standings || [] : [];
  if (!last || !last.event || !standings.length) return box;
  const title = el("div", "ev-sub", t("ev_yesterday"));
  title.append(" ", button("btn small secondary", "›", "yesterday-event", () => (location.hash = eventHash(last.event.id))));
  const list = el("ol", "ev-top");
  standings.slice(0, TOP).forEach((s, i) => {
    const li = el("li", s.account_id === me ? "me" : "");
    li.append(el("span", "ev-name", s.nickname), el("span", "num", percentText(s.percent)));
    li.value = s.place ?? i + 1;
    list.append(li);
  });
  box.append(title, list);
  const mine = myStanding(standings, me);
  if (mine && mine.place > TOP) box.append(el("div", "ev-me", t("ev_you_were", { place: mine.place, percent: percentText(mine.percent) })));
  return box;
}
