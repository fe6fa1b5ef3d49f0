// An event's page, #/event/ID (issue 30): its live standings (place, nickname, boards, matchpoints,
// percent) and, for each board whose results the server gives, everyone's result on it side by side
// with a replay each. The page shows only what GET /api/events/{id} sends: nothing of a board is
// worked out here from anything else.

import { button, el } from "./dom.js";
import { t } from "./i18n.js";
import { api, session } from "./net.js";
import { eventTitle, mpText, nextBoard, percentText, progressLine, whenText } from "./eventplay.js";
import { swissBody } from "./swisspage.js";

const EVERY_MS = 10000; // the standings are read again this often while the event is open (and the tab is seen)

const signed = (n) => (n > 0 ? `+${n}` : String(n));

function cell(tag, text, cls = "") {
  return el(tag, cls, text);
}

/** The standings as a table; the row of `me` marked. */
export function standingsTable(standings, me) {
  const table = el("table", "grid ev-standings");
  table.dataset.role = "event-standings";
  const head = el("tr");
  head.append(
    cell("th", t("ev_col_place"), "num"),
    cell("th", t("ev_col_player")),
    cell("th", t("ev_col_boards"), "num"),
    cell("th", t("ev_col_mp"), "num"),
    cell("th", t("ev_col_percent"), "num"),
  );
  table.append(head);
  for (const s of standings) {
    const tr = el("tr", s.account_id === me ? "you" : "");
    tr.dataset.account = s.account_id;
    tr.append(
      cell("td", s.rank, "num"),
      cell("td", `${s.nickname}${s.account_id === me ? t("ev_you") : ""}`, "ev-name"),
      cell("td", s.boards, "num"),
      cell("td", mpText(s.matchpoints), "num"),
      cell("td", percentText(s.percent), "num"),
    );
    table.append(tr);
  }
  return table;
}

/** A replay's address from a result: #/replay/GAME, with the table's code where the server gave one
 *  (an event's tables are private). */
export function replayOf(result) {
  const code = new URLSearchParams((result.replay || "").split("?")[1] || "").get("code");
  return { gameId: result.game_id, code };
}

/** One board: who played it and, when the server gives them, everyone's results side by side (score,
 *  matchpoints, replay); otherwise why they are not shown yet. */
export function boardBox(board, me, onReplay) {
  const box = el("div", "ev-board");
  box.dataset.role = "event-board";
  box.dataset.board = board.board;
  const head = el("h3", "", t("ev_board_n", { n: board.board }));
  const seat = board.seat === undefined ? "" : ` · ${t("seat_n", { n: board.seat + 1 })}`; // the same for all (shown once revealed)
  head.append(el("span", "muted", ` · ${t("ev_played_by", { n: board.played })}${seat}`));
  box.append(head);
  if (!board.results) { // not yours to see yet (ev_boards_later says when)
    if (board.mine && board.mine.status === "playing") head.append(el("span", "tag", t("ev_you_playing")));
    return box;
  }
  const table = el("table", "grid");
  const top = el("tr");
  top.append(cell("th", t("ev_col_player")), cell("th", t("ev_col_score"), "num"), cell("th", t("ev_col_mp"), "num"), cell("th", ""));
  table.append(top);
  for (const r of board.results) {
    const tr = el("tr", r.account_id === me ? "you" : "");
    tr.dataset.account = r.account_id;
    const last = el("td", "num");
    if (r.game_id) last.append(button("btn small secondary", t("ev_replay"), "event-replay", () => onReplay(replayOf(r))));
    tr.append(cell("td", r.nickname, "ev-name"), cell("td", signed(r.score), "num"), cell("td", mpText(r.matchpoints), "num"), last);
    table.append(tr);
  }
  box.append(table);
  return box;
}

/** An event's link to send to the group chat (an unlisted event is played by those who have it). */
function shareRow(event, toast) {
  const link = `${location.origin}${location.pathname}#/event/${encodeURIComponent(event.id)}`;
  const row = el("div", "row");
  const shown = el("input");
  shown.type = "text";
  shown.readOnly = true;
  shown.value = link;
  shown.dataset.role = "event-link";
  row.append(shown, button("btn small", t("share_link"), "share-event", async () => {
    if (navigator.share) {
      navigator.share({ title: event.name, url: link }).catch(() => {});
    } else {
      await navigator.clipboard?.writeText(link).catch(() => {});
      toast(t("link_copied"));
    }
  }));
  return row;
}

/** #/event/ID; handlers: {conn, eventId, onBack(), onOpenTable(id, code), onReplay({gameId, code}), toast} */
export class EventScreen {
  constructor(root, handlers) {
    this.root = root;
    this.h = handlers;
    this.key = null;
    root.innerHTML = "";
    root.className = "page";
    this.panel = el("div", "panel ev-page");
    this.panel.dataset.role = "event";
    root.append(this.panel);
    this.timer = setInterval(() => document.hidden || this.load(), EVERY_MS);
    this.load();
  }

  destroy() {
    clearInterval(this.timer);
  }

  async load() {
    const asked = (this.asked = (this.asked || 0) + 1);
    let data;
    try {
      data = await api("GET", `/api/events/${encodeURIComponent(this.h.eventId)}`);
    } catch (error) {
      if (this.key === null && asked === this.asked) this.draw(null, error.message);
      return;
    }
    if (asked !== this.asked) return; // a later read (e.g. after 报名) was asked: this one is stale
    const key = JSON.stringify(data);
    if (key === this.key) return; // unchanged: drawn again only when something moved
    this.key = key;
    this.draw(data);
  }

  /** The page from GET /api/events/{id}, or its error. */
  draw(data, error = "") {
    const title = el("h2", "", data ? eventTitle(data.event) : t("ev_event"));
    title.dataset.role = "event-name";
    title.append(el("span", "spacer"), button("btn small secondary", t("lobby"), "lobby", this.h.onBack));
    this.panel.replaceChildren(title);
    if (!data) {
      this.panel.append(el("div", "error-text", error));
      return;
    }
    const { event, standings } = data;
    const me = (session.account || {}).id;
    if (event.status === "finished" || data.phase === "finished") clearInterval(this.timer); // final: nothing moves any more
    if (event.kind === "swiss") { // a Swiss tournament's page (swisspage.js)
      if (data.phase !== "finished") this.panel.append(shareRow(event, this.h.toast));
      this.panel.append(...swissBody(data, this.h, () => this.load()));
      return;
    }
    const when = event.status === "finished" ? t("ev_closed")
      : event.status === "upcoming" ? t("ev_starts_at", { time: whenText(event.starts_at) })
        : t("ev_open_until", { time: whenText(event.ends_at) });
    const status = el("div", "muted", `${when} · ${t("ev_entrants", { n: data.entrants })}`);
    status.dataset.role = "event-status";
    this.panel.append(status, el("div", "muted ev-what", t("ev_what")));
    if (!event.daily_date && event.status !== "finished") this.panel.append(shareRow(event, this.h.toast));
    this.panel.append(progressLine(data), nextBoard(data, this.h));
    const table = standings.length ? standingsTable(standings, me) : el("div", "muted", t("ev_nobody"));
    this.panel.append(el("h3", "ev-section", t("ev_standings")), table, el("div", "muted", t("ev_mp_explain")));
    const boards = el("div", "ev-boards");
    boards.dataset.role = "event-boards";
    boards.append(el("h3", "ev-section", t("ev_boards")), el("div", "muted", t("ev_boards_later")), ...(data.boards || []).map((b) => boardBox(b, me, this.h.onReplay)));
    this.panel.append(boards);
  }
}
