// A player's past games (GET /api/players/{id}/games): a tap on a game opens its replay.

import { getLang, t } from "./i18n.js";
import { api, session } from "./net.js";
import { el } from "./dom.js";
import { w } from "./words.js";
import { sessionsSection } from "./session.js";

/** A player's games (yours by default), and the leaderboard whose names open their games. */
export async function historyScreen(root, { onBack, onReplay, onPlayer, onRecordFile, playerId = null }) {
  root.innerHTML = "";
  root.className = "page";
  const panel = el("div", "panel");
  const h2 = el("h2", "", playerId && playerId !== (session.account || {}).id ? t("player_games") : t("my_games"));
  h2.append(el("span", "spacer"));
  const back = el("button", "btn small secondary", t("lobby"));
  back.addEventListener("click", onBack);
  h2.append(back);
  panel.append(h2);
  if (onRecordFile) {
    const file = el("button", "btn small secondary", t("open_record"));
    file.dataset.action = "open-record-file";
    file.addEventListener("click", onRecordFile);
    h2.insertBefore(file, back);
  }
  root.append(panel);
  const account = session.account;
  const who = playerId || (account && account.id);
  root.append(await leaderboard(onPlayer, who));
  if (account && who === account.id) root.append(await sessionsSection(account.id)); // issue 29
  if (!who) return;
  let games;
  try {
    games = (await api("GET", `/api/players/${encodeURIComponent(who)}/games?limit=100`)).games;
  } catch (error) {
    panel.append(el("div", "error-text", error.message));
    return;
  }
  if (!games.length) {
    panel.append(el("div", "muted", t("no_games")));
    return;
  }
  const table = el("table", "grid");
  table.dataset.role = "history";
  const head = el("tr");
  for (const [text, cls] of [[t("when"), ""], [t("table"), ""], [t("outcome"), ""], [t("score"), "num"], ["", ""]]) head.append(el("th", cls, text));
  table.append(head);
  for (const g of games) {
    const row = el("tr", "tap");
    row.dataset.game = String(g.game_id);
    row.addEventListener("click", (event) => {
      if (!event.target.closest("a")) onReplay(g.game_id, g.game_no); // one tap anywhere on the game
    });
    const when = g.finished_at ? new Date(typeof g.finished_at === "number" ? g.finished_at * 1000 : g.finished_at) : null;
    const format = { month: "numeric", day: "numeric", hour: "2-digit", minute: "2-digit" };
    row.append(el("td", "", when && !isNaN(when) ? when.toLocaleString(getLang() === "zh" ? "zh-CN" : "en", format) : ""));
    const where = el("td", "", `${g.table_name || `${t("table")} ${g.table}`} · ${t("game_no", { n: g.game_no })}`);
    where.dataset.role = "table-name";
    row.append(where);
    row.append(el("td", "", g.outcome ? t(`outcome_${g.outcome}`) : ""));
    row.append(el("td", `num ${g.delta > 0 ? "pos" : g.delta < 0 ? "neg" : ""}`, g.delta > 0 ? `+${g.delta}` : String(g.delta)));
    const cell = el("td");
    const open = el("button", "btn small", t("open_replay"));
    open.dataset.action = "open-replay";
    open.addEventListener("click", (event) => {
      event.stopPropagation();
      onReplay(g.game_id, g.game_no);
    });
    const dl = el("a", "", "⤓");
    dl.href = `/api/games/${g.game_id}/record`;
    dl.title = t("download");
    dl.setAttribute("download", `niugui-game-${g.game_id}.json`);
    dl.style.marginLeft = "8px";
    dl.addEventListener("click", (event) => {
      event.preventDefault();
      event.stopPropagation(); // a plain link sends no token, and a private table's record needs it
      downloadRecord(g.game_id).catch(() => {});
    });
    cell.append(open, dl);
    row.append(cell);
    table.append(row);
  }
  panel.append(table);
}

/** Save a game's record as a file, fetched with the session's token. */
async function downloadRecord(gameId) {
  const record = await api("GET", `/api/games/${gameId}/record`);
  const url = URL.createObjectURL(new Blob([JSON.stringify(record, null, 1)], { type: "application/json" }));
  const link = el("a");
  link.href = url;
  link.download = `niugui-game-${gameId}.json`;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

async function leaderboard(onPlayer, current) {
  const panel = el("div", "panel");
  panel.append(el("h2", "", t("leaderboard")));
  let players = [];
  try {
    players = (await api("GET", "/api/leaderboard?limit=20")).players;
  } catch (error) {
    panel.append(el("div", "error-text", error.message));
    return panel;
  }
  const table = el("table", "grid");
  table.dataset.role = "leaderboard";
  const head = el("tr");
  for (const [text, cls] of [["#", ""], [t("nickname"), ""], [t("games"), "num"], [t("total"), "num"]]) head.append(el("th", cls, text));
  table.append(head);
  panel.append(el("div", "muted", w("points_rated")));
  players.forEach((p) => {
    const row = el("tr");
    row.append(el("td", "", p.flagged ? "⚑" : String(p.rank)));
    if (p.flagged) row.title = w("flagged");
    const name = el("td");
    const link = el("a", "", p.nickname);
    link.href = `#/history/${encodeURIComponent(p.id)}`;
    if (p.id === current) link.style.fontWeight = "700";
    link.addEventListener("click", (event) => {
      event.preventDefault();
      onPlayer(p.id);
    });
    name.append(link);
    row.append(name, el("td", "num", String(p.games)), el("td", "num", p.total > 0 ? `+${p.total}` : String(p.total)));
    table.append(row);
  });
  panel.append(table);
  return panel;
}
