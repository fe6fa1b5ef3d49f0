// A session's end and its ways to end early (issue 29): the settlement panel (结算) read from
// GET /api/tables/{id}/session, its result card (session.png) shared through the browser's share
// sheet or downloaded, and the dissolve vote (解散) shown while it runs.

import { getLang, t } from "./i18n.js";
import { api, session as auth } from "./net.js";
import { el, styleSheet } from "./dom.js";

await styleSheet(new URL("../css/session.css", import.meta.url).href);

const signed = (n) => (n > 0 ? `+${n}` : String(n));

/** A player's name in a settlement: a server bot's by its seat, as the table names it (机器人3). */
export const playerLabel = (p) => (p.account_id ? p.nickname : `${t("bot")}${getLang() === "zh" ? "" : " "}${p.seat + 1}`);

/** The table's session (its settlement), or null when it cannot be read. */
export async function loadSession(tableId, code) {
  const query = code ? `?code=${encodeURIComponent(code)}` : "";
  try {
    return await api("GET", `/api/tables/${encodeURIComponent(tableId)}/session${query}`);
  } catch {
    return null;
  }
}

/** The plain sentence for the reader: 你赢了 / 你输了 … (null for someone who did not play). */
export function verdict(sessionData, accountId) {
  const mine = sessionData.players.find((p) => p.account_id && p.account_id === accountId);
  if (!mine) return null;
  const first = sessionData.winners.length === 1 && mine.place === 1;
  if (mine.total > 0) return t(first ? "session_you_won_first" : "session_you_won", { delta: signed(mine.total), place: mine.place });
  if (mine.total < 0) return t("session_you_lost", { delta: signed(mine.total), place: mine.place });
  return t("session_you_even", { place: mine.place });
}

/** The settlement panel: every player's total, games won, 上游 count, best game and place
 *  (`nameOf(player)`: the name to show, by default `playerLabel`). */
export function settlementPanel({ data, accountId, buttons, nameOf = playerLabel }) {
  const box = el("div", "result settlement");
  box.dataset.role = "settlement";
  box.append(el("h2", "", t("session_title")));
  const ended = data.ended_by === "dissolved" ? t("session_dissolved") : t("session_played", { n: data.games_played });
  box.append(el("div", "sub", ended));
  const sentence = verdict(data, accountId);
  if (sentence) {
    const line = el("div", "verdict", sentence);
    line.dataset.role = "session-verdict";
    box.append(line);
  }
  const winners = data.players.filter((p) => data.winners.includes(p.seat)).map(nameOf);
  if (winners.length) box.append(el("div", "winners", t("session_winner", { names: winners.join("、") })));
  const table = el("table", "settle");
  const head = el("tr");
  for (const key of ["session_place", "session_player", "session_total", "session_won", "session_upstream", "session_best"]) {
    head.append(el("th", "", t(key)));
  }
  table.append(head);
  for (const p of data.players) {
    const row = el("tr", p.account_id && p.account_id === accountId ? "me" : "");
    row.dataset.seat = String(p.seat);
    row.dataset.total = String(p.total);
    const best = p.best === null ? "—" : signed(p.best);
    for (const text of [String(p.place), nameOf(p), signed(p.total), String(p.won), String(p.upstream), best]) {
      row.append(el("td", "", text));
    }
    table.append(row);
  }
  box.append(table);
  const bar = el("div", "buttons");
  for (const b of buttons) {
    const button = el("button", b.primary ? "btn" : "btn secondary", b.label);
    button.dataset.action = b.action;
    button.addEventListener("click", b.onClick);
    bar.append(button);
  }
  box.append(bar);
  return box;
}

/** Share the result card: the share sheet with the PNG where the browser has one, a download elsewhere.
 *  Resolves "shared", "downloaded" or "cancelled". */
export async function shareCard(tableId, code) {
  const query = code ? `?code=${encodeURIComponent(code)}` : "";
  const headers = auth.token ? { Authorization: `Bearer ${auth.token}` } : {};
  const response = await fetch(`/api/tables/${encodeURIComponent(tableId)}/session.png${query}`, { headers });
  if (!response.ok) throw new Error(t("session_card_failed"));
  const blob = await response.blob();
  const name = `niugui-${tableId}.png`;
  const file = new File([blob], name, { type: "image/png" });
  if (navigator.canShare && navigator.canShare({ files: [file] })) {
    try {
      await navigator.share({ files: [file], title: t("session_title") });
      return "shared";
    } catch {
      return "cancelled";
    }
  }
  const link = el("a");
  link.href = URL.createObjectURL(blob);
  link.download = name;
  link.dataset.role = "card-download";
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
  return "downloaded";
}

/** The dissolve vote in progress (state.dissolve): who proposed it, who agreed, the time left, and
 *  for a seat still asked, agree / refuse. */
export function voteBox({ st, names, now, onAnswer }) {
  const vote = st.dissolve;
  const box = el("div", "vote-box");
  box.dataset.role = "dissolve-vote";
  const left = Math.max(0, Math.ceil(vote.until - now));
  box.append(el("div", "", t("dissolve_asked", { name: names[vote.proposer] })));
  const agreed = vote.voters.filter((s) => vote.agreed.includes(s)).length;
  box.append(el("div", "sub", t("dissolve_count", { n: agreed, m: vote.voters.length, s: left })));
  const me = st.you;
  if (me !== null && me !== undefined && vote.voters.includes(me) && !vote.agreed.includes(me)) {
    const bar = el("div", "buttons");
    const yes = el("button", "btn small", t("dissolve_agree"));
    yes.dataset.action = "dissolve-agree";
    yes.addEventListener("click", () => onAnswer(true));
    const no = el("button", "btn small secondary", t("dissolve_refuse"));
    no.dataset.action = "dissolve-refuse";
    no.addEventListener("click", () => onAnswer(false));
    bar.append(yes, no);
    box.append(bar);
  }
  return box;
}

/** Whether the seat may propose a dissolve now (a seated person, a session under way, no vote). */
export function mayPropose(st) {
  const me = st.you;
  if (me === null || me === undefined || st.dissolve) return false;
  const slot = st.seats[me];
  return Boolean(slot.player && !slot.player.bot && (st.status === "between" || st.status === "playing"));
}

/** The words of a dissolve event, for a toast (null for none; an agreed one between games says
 *  nothing: the settlement follows at once). */
export function dissolveNews(ev, st, names) {
  if (ev.kind === "dissolve_vote" && !ev.agree) return t("dissolve_refused_by", { name: names[ev.seat] });
  if (ev.kind === "dissolve_ended" && ev.outcome === "expired") return t("dissolve_expired");
  if (ev.kind === "dissolve_ended" && ev.outcome === "agreed" && st.status === "playing") return t("dissolve_agreed");
  return null;
}

/** Your sessions (GET /api/me/sessions), newest first: a tap shows one's settlement and its card. */
export async function sessionsSection(accountId) {
  const panel = el("div", "panel");
  panel.dataset.role = "my-sessions";
  panel.append(el("h2", "", t("my_sessions")));
  let sessions = [];
  try {
    sessions = (await api("GET", "/api/me/sessions")).sessions;
  } catch (error) {
    panel.append(el("div", "error-text", error.message));
    return panel;
  }
  if (!sessions.length) {
    panel.append(el("div", "muted", t("no_sessions")));
    return panel;
  }
  const list = el("table", "grid");
  for (const s of sessions) {
    const mine = s.players.find((p) => p.account_id === accountId);
    const row = el("tr", "tap");
    row.dataset.table = s.table;
    const when = new Date((s.ended_at || s.created_at) * 1000).toLocaleDateString();
    const played = s.games ? `${s.games_played}/${s.games}` : String(s.games_played);
    row.append(el("td", "", when), el("td", "", s.name || `${t("table")} ${s.table}`), el("td", "num", played));
    const total = mine ? mine.total : 0;
    row.append(el("td", `num ${total > 0 ? "pos" : total < 0 ? "neg" : ""}`, signed(total)));
    row.addEventListener("click", () => {
      const overlay = el("div", "overlay");
      const close = () => overlay.remove();
      const buttons = [
        { label: t("session_share"), action: "share-card", primary: true, onClick: () => shareCard(s.table).catch(() => {}) },
        { label: "✕", action: "close-settlement", onClick: close },
      ];
      overlay.append(settlementPanel({ data: s, accountId, buttons }));
      document.body.append(overlay);
    });
    list.append(row);
  }
  panel.append(list);
  return panel;
}
