// The events one may see (issue 30): open and recent ones from GET /api/events — in the lobby (all
// but the daily challenge, which has its own card) or on a club's page (that club's) — each a tap
// away from its page, and 创建比赛 for a registered account (#/newevent, with the club's id from a
// club's page).

import { button, el } from "./dom.js";
import { t } from "./i18n.js";
import { api, session } from "./net.js";
import { eventHash, whenText } from "./eventplay.js";

const PAGE = 50; // events read at once (the server's page size is at most 100)

/** The page's address that makes an event (for `club`, when given). */
export const newEventHash = (club = null) => `#/newevent${club ? `?club=${encodeURIComponent(club)}` : ""}`;

/** An event in a line: name, kind, status and when, e.g. "周六赛 复式赛 进行中 · 12月6日 20:00 截止". */
export function eventItem(event) {
  const li = el("li");
  li.dataset.event = event.id;
  li.append(el("span", "tname", event.name), el("span", "tag", t(`ev_kind_${event.kind}`)), el("span", `tag ev-${event.status}`, t(`ev_status_${event.status}`)));
  const when = event.status === "upcoming" ? t("ev_starts_at", { time: whenText(event.starts_at) })
    : event.status === "open" ? t("ev_open_until", { time: whenText(event.ends_at) }) : whenText(event.ends_at);
  li.append(button("btn small", t("open"), "open-event", () => (location.hash = eventHash(event.id))), el("span", "tmeta", when));
  li.addEventListener("click", () => (location.hash = eventHash(event.id)));
  return li;
}

/** Which events a list shows: a club's own, or (the lobby) all but the daily challenges. */
export function listedHere(events, club = null) {
  return events.filter((e) => (club ? e.club === club : !e.daily_date));
}

/** The section: heading with 创建比赛, then the list (read once; `club`: that club's events only). */
export function eventsSection(club = null) {
  const box = el("div", club ? "ev-list" : "panel ev-list");
  box.dataset.role = "events";
  const head = el("h2", "", t("ev_events"));
  head.append(el("span", "spacer"));
  if ((session.account || {}).username) head.append(button("btn small", t("ev_new"), "new-event", () => (location.hash = newEventHash(club))));
  const list = el("ul", "table-list");
  list.dataset.role = "event-list";
  box.append(head, list);
  if (club) head.style.marginTop = "18px";
  api("GET", `/api/events?limit=${PAGE}`).then(({ events }) => {
    const shown = listedHere(events, club);
    box.hidden = !shown.length && !club && !(session.account || {}).username; // a guest's lobby: nothing to offer
    list.replaceChildren(...(shown.length ? shown.map(eventItem) : [el("li", "muted", t("ev_none_listed"))]));
  }).catch((error) => list.replaceChildren(el("li", "error-text", error.message)));
  return box;
}
