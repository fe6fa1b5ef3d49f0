// A Swiss tournament's page (issue 30), inside #/event/ID: registration before the start (报名 /
// 取消报名, the owner's 现在开始), then your way to your table of the round (play_event), the live
// standings (bots filling a table said so), each round's tables (who sits where, each game's places
// and points) and, once over, the final table. Only what GET /api/events/{id} sends is shown.

import { button, el } from "./dom.js";
import { t } from "./i18n.js";
import { api, session } from "./net.js";
import { playNext, whenText } from "./eventplay.js";

const signed = (n) => (n > 0 ? `+${n}` : String(n));

/** The settings in a line, e.g. "3 轮 · 每轮 1 局 · 名次分 3/2/1/0". */
export function settingsLine(settings) {
  return t("sw_settings", { rounds: settings.rounds, games: settings.games, points: settings.place_points.join("/") });
}

/** Where the tournament stands, in a line: registering (how many), round r of R, or over. */
export function phaseLine(view) {
  const { phase, event, rounds } = view;
  if (phase === "finished") return t("sw_finished");
  if (phase === "running") return t("sw_running", { r: rounds.length, rounds: event.settings.rounds });
  const when = event.settings.auto_start ? t("ev_starts_at", { time: whenText(event.starts_at) }) : t("sw_starts_owner");
  return `${t("sw_registering", { n: view.entrants.length })} · ${when}`;
}

/** The standings: rank, player (dropped ones said so), place points, game points, games (and how
 *  many of them had a bot at the table). */
export function swissStandings(lines, me) {
  const table = el("table", "grid ev-standings");
  table.dataset.role = "swiss-standings";
  const head = el("tr");
  for (const [key, cls] of [["ev_col_place", "num"], ["ev_col_player", ""], ["sw_col_score", "num"], ["sw_col_points", "num"], ["sw_col_games", "num"]]) {
    head.append(el("th", cls, t(key)));
  }
  table.append(head);
  for (const s of lines) {
    const tr = el("tr", s.account_id === me ? "you" : "");
    tr.dataset.account = s.account_id;
    const name = el("td", "ev-name", `${s.nickname}${s.account_id === me ? t("ev_you") : ""}`);
    if (s.dropped) name.append(el("span", "tag", t("sw_dropped")));
    tr.append(el("td", "num", s.rank), name, el("td", "num", s.score), el("td", "num", signed(s.points)), el("td", "num", s.games));
    table.append(tr);
  }
  return table;
}

/** A seat's name: the player's (托管 when absent at the round's start), or 机器人. */
function seatName(seat, me) {
  const td = el("td", "ev-name", seat.bot ? t("sw_bot_seat") : `${seat.nickname}${seat.account_id === me ? t("ev_you") : ""}`);
  if (seat.autoplay) td.append(el("span", "tag", t("sw_autoplay")));
  return td;
}

/** One table of a round: its seats, each game's place per seat, the points summed. */
export function tableBox(table, n, me) {
  const box = el("div", "sw-table");
  box.dataset.role = "swiss-table";
  box.dataset.table = table.table;
  const state = t(table.done ? "sw_table_done" : table.table ? "sw_table_playing" : "sw_not_started");
  box.append(el("div", "ev-sub", `${t("sw_table_n", { n })} · ${state}`));
  const grid = el("table", "grid");
  const head = el("tr");
  head.append(el("th", "num", "#"), el("th", "", t("ev_col_player")));
  table.games.forEach((_, g) => head.append(el("th", "num", String(g + 1))));
  head.append(el("th", "num", t("sw_col_points")));
  grid.append(head);
  for (const seat of table.seats) {
    const tr = el("tr", seat.account_id && seat.account_id === me ? "you" : "");
    tr.dataset.seat = seat.seat;
    if (seat.account_id) tr.dataset.account = seat.account_id;
    tr.append(el("td", "num", seat.seat + 1), seatName(seat, me));
    let total = 0;
    for (const game of table.games) {
      const at = game.finish.indexOf(seat.seat);
      const place = at < 0 ? 3 : at; // R30: not out at the end is 下游
      total += game.scores[seat.seat] || 0;
      const cell = el("td", "num", t(`place_${place}`));
      cell.dataset.place = place;
      tr.append(cell);
    }
    tr.append(el("td", "num", signed(total)));
    grid.append(tr);
  }
  box.append(grid);
  if (table.bots) box.append(el("div", "muted", t("sw_bots_fill", { n: table.bots })));
  return box;
}

/** Registration: 报名 / 取消报名 (and the owner's 现在开始) with who registered. */
function registration(view, h, reload) {
  const box = el("div", "sw-register");
  box.dataset.role = "swiss-registration";
  const me = session.account || {};
  const id = encodeURIComponent(view.event.id);
  const act = (label, action, method, path, cls = "btn ev-play") => {
    const b = button(cls, label, action, async () => {
      b.disabled = true;
      try {
        await api(method, path);
      } catch (error) {
        h.toast(error.message);
      }
      reload();
    });
    return b;
  };
  if (view.me && view.me.registered) {
    box.append(el("div", "ev-done", t("sw_registered")), act(t("sw_unregister"), "swiss-leave", "DELETE", `/api/events/${id}/join`, "btn secondary"));
  } else {
    box.append(act(t("sw_register"), "swiss-join", "POST", `/api/events/${id}/join`));
  }
  if (view.event.owner === me.id) box.append(act(t("sw_start_now"), "swiss-start", "POST", `/api/events/${id}/start`, "btn secondary"));
  const list = el("ul", "sw-entrants");
  list.dataset.role = "swiss-entrants";
  for (const e of view.entrants) list.append(el("li", e.account_id === me.id ? "me" : "", e.nickname));
  box.append(el("h3", "ev-section", t("sw_entrants", { n: view.entrants.length })), list);
  return box;
}

/** 去我的牌桌 while you have a table in this round (play_event), else a word on waiting. */
function myTable(view, h) {
  if (view.phase !== "running" || !view.me) return el("div");
  if (!view.me.table) return el("div", "muted", t("sw_wait_round"));
  const go = button("btn ev-play", t("sw_go_table"), "play-event", async () => {
    go.disabled = true;
    try {
      const table = await playNext(h.conn, view.event.id);
      h.onOpenTable(table.id, table.code);
    } catch (error) {
      go.disabled = false;
      h.toast(error.message);
    }
  });
  go.dataset.table = view.me.table;
  return go;
}

/** The page below the title; h: {conn, toast, onOpenTable(id, code)}; reload() reads it again. */
export function swissBody(view, h, reload) {
  const me = (session.account || {}).id;
  const parts = [];
  const status = el("div", "muted", phaseLine(view));
  status.dataset.role = "event-status";
  parts.push(status, el("div", "muted", settingsLine(view.event.settings)), el("div", "muted ev-what", t("sw_what")));
  if (view.phase === "registering") {
    parts.push(registration(view, h, reload));
    return parts;
  }
  parts.push(myTable(view, h));
  const head = el("h3", "ev-section", t(view.final ? "sw_final" : "ev_standings"));
  head.dataset.role = view.final ? "swiss-final" : "swiss-live";
  parts.push(head, swissStandings(view.final || view.standings, me));
  for (const round of [...view.rounds].reverse()) { // the round being played first
    const box = el("div", "sw-round");
    box.dataset.role = "swiss-round";
    box.dataset.round = round.round;
    box.append(el("h3", "ev-section", t("sw_round_n", { n: round.round })));
    round.tables.forEach((table, n) => box.append(tableBox(table, n + 1, me)));
    parts.push(box);
  }
  return parts;
}
