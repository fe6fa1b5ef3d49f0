// A player's profile (GET /api/players/{id}/profile) with the rating chart, and the leaderboard by
// rating or by points (GET /api/leaderboard?by=…). Plain DOM and SVG.

import { button, el, svgEl as svg } from "./dom.js";
import { api, session } from "./net.js";
import { t } from "./i18n.js";
import { percent, w } from "./words.js";

/** The rating after each rated game as a line (shown rating; the first point is the start, 0). */
export function ratingChart(history, width = 320, height = 120) {
  const values = [0, ...history.map((p) => p.shown)];
  const low = Math.min(...values);
  const high = Math.max(...values, low + 1);
  const pad = 18;
  const x = (i) => pad + (i * (width - 2 * pad)) / Math.max(1, values.length - 1);
  const y = (v) => height - pad - ((v - low) * (height - 2 * pad)) / (high - low);
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, width: "100%", role: "img", class: "rating-chart" });
  chart.dataset.role = "rating-chart";
  chart.append(svg("line", { x1: pad, y1: height - pad, x2: width - pad, y2: height - pad, class: "axis" }));
  const line = svg("polyline", { points: values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" "), class: "line" });
  chart.append(line);
  values.forEach((v, i) => chart.append(svg("circle", { cx: x(i).toFixed(1), cy: y(v).toFixed(1), r: 2.5, class: "dot" })));
  for (const [v, where] of [[high, pad], [low, height - pad]]) {
    const label = svg("text", { x: 2, y: where + 4, class: "label" });
    label.textContent = String(v);
    chart.append(label);
  }
  return chart;
}

function header(title, onBack) {
  const h2 = el("h2", "", title);
  h2.append(el("span", "spacer"), button("btn small secondary", w("lobby"), "lobby", onBack));
  return h2;
}

function stat(label, value, role) {
  const box = el("div", "stat");
  const b = el("b", "", value);
  b.dataset.role = role;
  box.append(el("span", "muted", label), b);
  return box;
}

/** handlers: {playerId (null: yours), onBack(), onReplay(gameId), onLeaderboard()} */
export async function profileScreen(root, { playerId, onBack, onReplay, onLeaderboard }) {
  root.innerHTML = "";
  root.className = "page";
  const panel = el("div", "panel profile");
  panel.dataset.role = "profile";
  root.append(panel);
  const who = playerId || (session.account || {}).id;
  let p;
  try {
    p = await api("GET", `/api/players/${encodeURIComponent(who)}/profile`);
  } catch (error) {
    panel.append(header(w("profile"), onBack), el("div", "error-text", error.message));
    return;
  }
  panel.append(header(p.nickname, onBack));
  const stats = el("div", "stats");
  stats.append(
    stat(w("rating"), p.rating ? String(p.rating.shown) : w("unrated"), "rating"),
    stat(w("games_played"), String(p.games), "games"),
    stat(w("upstream_rate"), percent(p.upstream_rate), "upstream-rate"),
    stat(w("escape_rate"), percent(p.escape_rate), "escape-rate"),
  );
  panel.append(stats);
  if (!p.rating) {
    const why = el("div", "muted", w("unrated_why"));
    why.dataset.role = "unrated-why";
    panel.append(why);
  }
  const chartBox = el("div", "panel");
  chartBox.append(el("h2", "", w("rating_chart")));
  chartBox.append(p.history.length ? ratingChart(p.history) : el("div", "muted", w("no_history")));
  const modes = el("div", "panel");
  modes.append(el("h2", "", w("results_by_mode")));
  const grid = el("table", "grid");
  grid.dataset.role = "modes";
  for (const [key, line] of Object.entries(p.modes)) {
    const row = el("tr");
    const outcomes = Object.entries(line.outcomes).map(([o, n]) => `${t(`outcome_${o}`)} ${n}`).join(" · ");
    row.append(
      el("td", "", w(`mode_${key}`)),
      el("td", "num", String(line.games)),
      el("td", "", w("won_lost_drawn", { w: line.won, l: line.lost, d: line.drawn })),
      el("td", "muted", outcomes),
    );
    grid.append(row);
  }
  modes.append(grid);
  const recent = el("div", "panel");
  recent.append(el("h2", "", w("recent_games")));
  const list = el("table", "grid");
  list.dataset.role = "recent";
  for (const g of p.recent) {
    const row = el("tr");
    row.dataset.game = String(g.game_id);
    row.append(
      el("td", "", g.finished_at ? new Date(g.finished_at * 1000).toLocaleString() : ""),
      el("td", "", t(`outcome_${g.outcome}`)),
      el("td", `num ${g.delta > 0 ? "pos" : g.delta < 0 ? "neg" : ""}`, g.delta > 0 ? `+${g.delta}` : String(g.delta)),
    );
    const cell = el("td");
    cell.append(button("btn small", w("replay"), "open-replay", () => onReplay(g.game_id, g.game_no)));
    row.append(cell);
    list.append(row);
  }
  recent.append(p.recent.length ? list : el("div", "muted", t("no_games")));
  const more = button("btn small secondary", w("leaderboard"), "leaderboard", onLeaderboard);
  root.append(chartBox, modes, recent, more);
}

/** handlers: {onBack(), onPlayer(id)}; by: "rating" (default) or "points" */
export async function leaderboardScreen(root, { onBack, onPlayer, by = "rating" }) {
  root.innerHTML = "";
  root.className = "page";
  const panel = el("div", "panel");
  panel.dataset.role = "leaderboard-screen";
  panel.append(header(w("leaderboard"), onBack));
  const tabs = el("div", "tabs");
  for (const kind of ["rating", "points"]) {
    const b = button(kind === by ? "on" : "", w(`by_${kind}`), `by-${kind}`, () => leaderboardScreen(root, { onBack, onPlayer, by: kind }));
    tabs.append(b);
  }
  panel.append(tabs);
  root.append(panel);
  let board;
  try {
    board = await api("GET", `/api/leaderboard?by=${by}&limit=50`);
  } catch (error) {
    panel.append(el("div", "error-text", error.message));
    return;
  }
  panel.append(el("div", "muted", by === "rating" ? w("min_games", { n: board.min_games }) : w("points_rated")));
  const grid = el("table", "grid");
  grid.dataset.role = "leaderboard";
  grid.dataset.by = by;
  const head = el("tr");
  for (const [text, cls] of [["#", ""], [t("nickname"), ""], [w("games_played"), "num"], [by === "rating" ? w("rating") : t("total"), "num"]]) {
    head.append(el("th", cls, text));
  }
  grid.append(head);
  const me = (session.account || {}).id;
  board.players.forEach((p) => {
    const row = el("tr");
    row.dataset.player = p.id;
    const name = el("td");
    const link = el("a", "", p.nickname);
    link.href = `#/profile/${encodeURIComponent(p.id)}`;
    if (p.id === me) link.classList.add("me");
    link.addEventListener("click", (event) => {
      event.preventDefault();
      onPlayer(p.id);
    });
    name.append(link);
    const value = by === "rating" ? String(p.shown) : p.total > 0 ? `+${p.total}` : String(p.total);
    const place = p.flagged ? "⚑" : String(p.rank);
    if (p.flagged) row.title = w("flagged");
    row.append(el("td", "", place), name, el("td", "num", String(p.games)), el("td", "num", value));
    grid.append(row);
  });
  if (!board.players.length) { // no bare header: say why nobody is listed yet, and how to be
    const empty = el("div", "muted", by === "rating" ? w("board_empty_rating", { n: board.min_games }) : w("board_empty_points"));
    empty.dataset.role = "leaderboard-empty";
    panel.append(empty);
    return;
  }
  panel.append(grid);
}
