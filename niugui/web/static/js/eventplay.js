// Playing an event's next board and the way back (issue 30): play_event seats you at a table for your
// next board; at that table, once the board is over, 下一副 and 成绩榜 lead on. Also the small readers
// of what the server sends about an event (docs/protocol.md "Events"), one copy for every screen.

import { button, el } from "./dom.js";
import { getLang, t } from "./i18n.js";
import "./eventwords.js";

const KEY = "niugui.eventTables"; // table id → event id, for tables play_event gave this tab

function remembered() {
  try {
    return JSON.parse(sessionStorage.getItem(KEY) || "{}");
  } catch {
    return {};
  }
}

/** Note that `table` plays a board of `event` (the last 20 kept). */
export function rememberTable(table, event) {
  const known = Object.entries(remembered()).filter(([id]) => id !== table).slice(-19);
  sessionStorage.setItem(KEY, JSON.stringify(Object.fromEntries([...known, [table, event]])));
}

const EVENT_CREATOR = "event:"; // an event's tables are created by "event:ID" (the server's creator_of)

/** The event a table plays a board (or a Swiss round) of: the table's own word — its state's
 *  `event` (or its creator, "event:ID"), so that 下一副 and 成绩榜 survive a closed tab — else what
 *  play_event told this tab; null for any other table. */
export function eventOfTable(st, tableId) {
  if (st && st.event) return st.event;
  const creator = st && typeof st.creator === "string" ? st.creator : "";
  if (creator.startsWith(EVENT_CREATOR)) return creator.slice(EVENT_CREATOR.length);
  return remembered()[tableId] || null;
}

/** Ask for the next board of `eventId`: {id, code} of the table to open. */
export async function playNext(conn, eventId) {
  const ack = await conn.request("play_event", { event: eventId });
  const data = ack.data || {};
  const table = data.table && typeof data.table === "object" ? data.table : { id: data.table, code: data.code };
  rememberTable(table.id, eventId);
  return { id: table.id, code: table.code || null };
}

export const eventHash = (id) => `#/event/${encodeURIComponent(id)}`;
const tableHash = ({ id, code }) => `#/table/${encodeURIComponent(id)}${code ? `?code=${encodeURIComponent(code)}` : ""}`;

/** The result panel's buttons at an event's table once its board is over: 下一副 (play_event) and
 *  成绩榜 (the event's page); none at any other table. Either stands up from the finished board's
 *  table first, so that the lobby's 回到牌桌 does not keep offering it. handlers: {conn, toast} */
export function eventButtons(st, tableId, { conn, toast }) {
  const event = eventOfTable(st, tableId);
  if (!event || !st || st.status === "playing") return [];
  const stand = () => (st.status === "finished" ? conn.request("leave", { table: tableId }).catch(() => {}) : Promise.resolve());
  const next = async () => {
    await stand();
    try {
      location.hash = tableHash(await playNext(conn, event));
    } catch (error) {
      toast(error.message);
      location.hash = eventHash(event); // nothing left to play (or the event closed): its standings
    }
  };
  const standings = { label: t("ev_standings"), action: "event-standings", onClick: () => stand().then(() => (location.hash = eventHash(event))) };
  if (st.status !== "finished") return [standings]; // between a Swiss round's games: 下一局 is the table's own
  return [{ label: t("ev_next_board"), action: "event-next", primary: true, onClick: next }, standings];
}

/** Your boards played of all, your place and percentage (an event's view, with `me`), e.g.
 *  "已打 2/8 副 · 第 3 名（共 12 人）· 58.3%". */
export function progressLine(view) {
  const { me } = view;
  const line = el("div", "ev-progress");
  line.dataset.role = "event-progress";
  line.append(el("b", "", t("ev_progress", { n: me ? me.boards_done : 0, m: me ? me.boards : (view.boards || []).length })));
  if (me && me.rank) line.append(el("span", "", ` · ${t("ev_place", { place: me.rank, n: view.standings.length })} · ${percentText(me.percent)}`));
  return line;
}

/** 开始挑战 / 打第 N 副 / 回到第 N 副 (play_event, then the table) while a board is left and the event
 *  is open; else a word why not. handlers: {conn, toast, onOpenTable(id, code)} */
export function nextBoard(view, h) {
  const { event, me } = view;
  const total = me ? me.boards : (view.boards || []).length;
  const next = me ? me.next_board : 1;
  if (event.status === "upcoming") return el("div", "ev-done", t("ev_starts_at", { time: whenText(event.starts_at) }));
  if (event.status !== "open") return el("div", "ev-done", t("ev_closed"));
  if (!next) return el("div", "ev-done", t("ev_all_done", { m: total }));
  const label = me && me.playing ? t("ev_resume", { n: next }) : me && me.boards_done ? t("ev_play_next", { n: next }) : t("ev_play_first");
  const play = button("btn ev-play", label, "play-event", async () => {
    play.disabled = true;
    try {
      const table = await playNext(h.conn, event.id);
      h.onOpenTable(table.id, table.code);
    } catch (error) {
      play.disabled = false;
      h.toast(error.message);
    }
  });
  play.dataset.board = next;
  const box = el("div");
  box.append(play, el("div", "muted", t("ev_how", { m: total, bots: t(`bot_${event.settings.bot_level}`) })));
  return box;
}

/** An event's title: 每日复式 · 2026-12-05 for a daily challenge (in the page's language), else its name. */
export const eventTitle = (event) => (event.daily_date ? t("ev_daily_of", { date: event.daily_date }) : event.name);

/** A percentage as shown: 62.5% (the server's percent, 0–100). */
export const percentText = (p) => (p === null || p === undefined ? "—" : `${Number(p).toFixed(1)}%`);

/** Matchpoints as shown: 3, 21.5 (a tie scores ½, so halves are common; "½" alone reads badly in
 *  some CJK fonts, hence the decimal). */
export const mpText = (mp) => String(Math.round(mp * 100) / 100);

/** A time (seconds since 1970, or an ISO text) in the page's language, e.g. 12月6日 00:00. */
export function whenText(at) {
  if (at === null || at === undefined) return "";
  const date = typeof at === "number" ? new Date(at * 1000) : new Date(at);
  return date.toLocaleString(getLang() === "zh" ? "zh-CN" : "en", { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
}
