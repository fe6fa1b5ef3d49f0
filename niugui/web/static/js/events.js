// An event's page, #/event/ID (issue 30): its live standings (place, nickname, boards, matchpoints,
// percent) and, for each board whose results the server gives, everyone's result on it side by side
// with a replay each. The page shows only what GET /api/events/{id} sends: nothing of a board is
// worked out here from anything else.

import { button, el } from "./dom.js";
import { t } from "./i18n.js";
import { api, session } from "./net.js";
import { mpText, myStanding, percentText, playNext, whenText } from "./eventplay.js";

const EVERY_MS = 5000; // the standings are read again this often while the event is open

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
  standings.forEach((s, i) => {
    const tr = el("tr", s.account_id === me ? "you" : "");
    tr.dataset.account = s.account_id;
    tr.append(
      cell("td", s.place ?? i + 1, "num"),
      cell("td", `${s.nickname}${s.account_id === me ? t("ev_you") : ""}`, "ev-name"),
      cell("td", s.boards, "num"),
      cell("td", mpText(s.matchpoints), "num"),
      cell("td", percentText(s.percent), "num"),
    );
    table.append(tr);
  });
  return table;
}

/** One board's results, side by side: each player's score, matchpoints and replay. */
export function boardTable(board, me, onReplay) {
  const box = el("div", "ev-board");
  box.dataset.role = "event-board";
  box.dataset.board = board.board;
  box.append(el("h3", "", t("ev_board_n", { n: board.board })));
  const table = el("table", "grid");
  const head = el("tr");
  head.append(cell("th", t("ev_col_player")), cell("th", t("ev_col_score"), "num"), cell("th", t("ev_col_mp"), "num"), cell("th", ""));
  table.append(head);
  for (const r of board.results) {
    const tr = el("tr", r.account_id === me ? "you" : "");
    tr.dataset.account = r.account_id;
    const who = cell("td", r.nickname, "ev-name");
    if (r.place !== undefined && r.place !== null) who.append(el("div", "muted", t(`place_${r.place}`))); // 上游…下游
    const replay = r.game_id ? button("btn small secondary", t("ev_replay"), "event-replay", () => onReplay(r.game_id)) : "";
    const last = el("td", "num");
    last.append(replay);
    tr.append(who, cell("td", signed(r.score), "num"), cell("td", mpText(r.matchpoints), "num"), last);
    table.append(tr);
  }
  box.append(table);
  return box;
}

/** #/event/ID; handlers: {conn, eventId, onBack(), onOpenTable(id, code), onReplay(gameId), toast} */
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
    this.timer = setInterval(() => this.load(), EVERY_MS);
    this.load();
  }

  destroy() {
    clearInterval(this.timer);
  }

  async load() {
    let data;
    try {
      data = await api("GET", `/api/events/${encodeURIComponent(this.h.eventId)}`);
    } catch (error) {
      if (this.key === null) this.draw(null, error.message);
      return;
    }
    const key = JSON.stringify(data);
    if (key === this.key) return; // unchanged: drawn again only when something moved
    this.key = key;
    this.draw(data);
  }

  /** The page from GET /api/events/{id}, or its error. */
  draw(data, error = "") {
    const title = el("h2", "", data ? data.event.name || t("ev_event") : t("ev_event"));
    title.dataset.role = "event-name";
    title.append(el("span", "spacer"), button("btn small secondary", t("lobby"), "lobby", this.h.onBack));
    this.panel.replaceChildren(title);
    if (!data) {
      this.panel.append(el("div", "error-text", error));
      return;
    }
    const { event } = data;
    const me = (session.account || {}).id;
    const standings = data.standings || [];
    const over = event.status === "finished" || event.status === "closed";
    if (over) clearInterval(this.timer); // final: nothing moves any more
    const when = over ? t("ev_closed") : event.starts_at && event.starts_at * 1000 > Date.now()
      ? t("ev_starts_at", { time: whenText(event.starts_at) })
      : event.ends_at ? t("ev_open_until", { time: whenText(event.ends_at) }) : "";
    const status = el("div", "muted", [when, t("ev_entrants", { n: standings.length })].filter(Boolean).join(" · "));
    status.dataset.role = "event-status";
    this.panel.append(status, el("div", "muted ev-what", t("ev_what")));
    this.panel.append(this.progress(event, myStanding(standings, me), over, standings.length));
    const table = standings.length ? standingsTable(standings, me) : el("div", "muted", t("ev_nobody"));
    this.panel.append(el("h3", "ev-section", t("ev_standings")), table, el("div", "muted", t("ev_mp_explain")));
    this.panel.append(this.boards(data.boards || [], me));
  }

  /** Your boards played so far and the button for the next one (while the event is open). */
  progress(event, mine, over, standingsCount) {
    const box = el("div", "ev-progress");
    box.dataset.role = "event-progress";
    const played = mine ? mine.boards : 0;
    box.append(el("b", "", t("ev_progress", { n: played, m: event.boards })));
    if (mine) box.append(el("span", "", ` · ${t("ev_place", { place: mine.place, n: standingsCount })}`));
    if (!over && played < event.boards) {
      const label = played ? t("ev_play_next", { n: played + 1 }) : t("ev_play_first");
      const play = button("btn ev-play", label, "play-event", async () => {
        play.disabled = true;
        try {
          const table = await playNext(this.h.conn, event.id);
          this.h.onOpenTable(table.id, table.code);
        } catch (error) {
          play.disabled = false;
          this.h.toast(error.message);
        }
      });
      box.append(play);
    }
    return box;
  }

  /** The boards whose results the server gave, each side by side; a word when there are none yet. */
  boards(boards, me) {
    const box = el("div", "ev-boards");
    box.dataset.role = "event-boards";
    box.append(el("h3", "ev-section", t("ev_boards")));
    const shown = boards.filter((b) => b.results && b.results.length);
    if (!shown.length) box.append(el("div", "muted", t("ev_boards_later")));
    for (const board of shown) box.append(boardTable(board, me, this.h.onReplay));
    return box;
  }
}
