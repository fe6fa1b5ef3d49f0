// Playing an event's next board and the way back (issue 30): play_event seats you at a table for your
// next board; at that table, once the board is over, 下一副 and 成绩榜 lead on. Also the small readers
// of what the server sends about an event (docs/protocol.md "Events"), one copy for every screen.

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

/** The event a table plays a board of: the table's own word (its state's `event`), else what
 *  play_event told this tab; null for any other table. */
export function eventOfTable(st, tableId) {
  const said = st && (st.event ?? (st.settings && st.settings.event));
  if (said) return typeof said === "object" ? said.id : said;
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
 *  成绩榜 (the event's page); none at any other table. handlers: {conn, toast} */
export function eventButtons(st, tableId, { conn, toast }) {
  const event = eventOfTable(st, tableId);
  if (!event || !st || st.status === "playing") return [];
  const next = async () => {
    try {
      location.hash = tableHash(await playNext(conn, event));
    } catch (error) {
      toast(error.message);
      location.hash = eventHash(event); // nothing left to play (or the event closed): its standings
    }
  };
  return [
    { label: t("ev_next_board"), action: "event-next", primary: true, onClick: next },
    { label: t("ev_standings"), action: "event-standings", onClick: () => (location.hash = eventHash(event)) },
  ];
}

/** A standing's row of this account, with its place (1-based), or null. */
export function myStanding(standings, accountId) {
  const i = (standings || []).findIndex((s) => s.account_id === accountId);
  return i < 0 ? null : { ...standings[i], place: standings[i].place ?? i + 1 };
}

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
