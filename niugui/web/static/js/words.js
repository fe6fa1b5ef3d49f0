// Words of quick play, ratings, leaderboards and profiles (zh default, en), apart from i18n.js so
// that these screens add no edits to the shared dictionary; the same {name} placeholders as t().

import { el } from "./dom.js";
import { getLang, t } from "./i18n.js";

const WORDS = {
  zh: {
    quick_play: "快速开始",
    qp_bots_ok: "别人用机器人补齐时，带上我一起打",
    quick_play_hint: "一键匹配：凑齐四位玩家就开局。至少两位真人的牌局计入等级分；只有你一人、其余由机器人补齐的不计入。",
    fill_bots_note: "用机器人补齐后，若桌上只有你一位真人，这局不计入等级分。",
    unrated_why: "至少两位真人同桌、计入等级分的牌局才会给出等级分；只和机器人打的不算。",
    any: "不限",
    seconds: "{n} 秒",
    waiting_title: "正在匹配…",
    waiting_count: "{n} 人在排队",
    waited: "已等 {s} 秒",
    leave_queue: "取消匹配",
    fill_bots: "用机器人补齐",
    bots_in: "{s} 秒后可用机器人补齐",
    delay_reason: "最近逃跑 {n} 次，需多等 {m} 秒才能入座。",
    rated: "计入等级分",
    leaderboard: "排行榜",
    by_rating: "按等级分",
    by_points: "按积分",
    min_games: "至少 {n} 局计分对局才上榜",
    points_rated: "只计“计入等级分”的对局（至少两位真人）的积分",
    my_profile: "我的资料",
    profile: "玩家资料",
    rating: "等级分",
    unrated: "尚无等级分",
    games_played: "对局数",
    upstream_rate: "上游率",
    escape_rate: "逃跑率",
    results_by_mode: "各模式战绩",
    mode_2v2: "二对二",
    "mode_1v3 alone": "双牛鬼（一打三）",
    "mode_1v3 three": "对阵双牛鬼",
    won_lost_drawn: "胜 {w} · 负 {l} · 平 {d}",
    recent_games: "最近对局",
    replay: "回放",
    rating_chart: "等级分走势",
    no_history: "还没有计分对局。",
    board_empty_rating: "还没有人上榜：打满 {n} 局计入等级分的牌局（至少两位真人）就能上榜。",
    board_empty_points: "还没有人上榜：计入等级分的牌局（至少两位真人）的积分会列在这里。",
    seat_rating: "等级分 {r}",
    seat_escapes: "逃跑率 {e}",
    seat_new: "新玩家",
    err_already_seated: "你正在另一桌对局，先打完这一局。",
    err_bad_state: "现在不能这样做：{m}",
    err_offline: "连接已断开，稍后再试。",
    err_rate_limited: "操作太快了，请稍等。",
    flagged: "对局多来自固定的几位对手，暂不排名",
    lobby: "大厅",
    games: "局数",
    turn_timer: "出牌限时",
  },
  en: {
    quick_play: "Quick play",
    qp_bots_ok: "Include me when someone fills the table with bots",
    quick_play_hint: "One tap: you are seated as soon as four players wait. Games with two or more people are rated; you alone with bots is not.",
    fill_bots_note: "If bots fill the table and you are the only person at it, the game is not rated.",
    unrated_why: "A rating comes from rated games with at least two people at the table; games against bots alone do not count.",
    any: "Any",
    seconds: "{n} s",
    waiting_title: "Finding players…",
    waiting_count: "{n} waiting",
    waited: "waited {s} s",
    leave_queue: "Leave queue",
    fill_bots: "Fill with bots",
    bots_in: "bots available in {s} s",
    delay_reason: "{n} recent escapes: you wait {m} s longer before you can be seated.",
    rated: "Rated",
    leaderboard: "Leaderboard",
    by_rating: "By rating",
    by_points: "By points",
    min_games: "at least {n} rated games to be listed",
    points_rated: "only the points of rated games (two or more people at the table) count",
    my_profile: "My profile",
    profile: "Player profile",
    rating: "Rating",
    unrated: "not rated yet",
    games_played: "Games",
    upstream_rate: "上游 rate",
    escape_rate: "Escape rate",
    results_by_mode: "Results by mode",
    mode_2v2: "2v2",
    "mode_1v3 alone": "双牛鬼 (1v3, alone)",
    "mode_1v3 three": "Against a 双牛鬼",
    won_lost_drawn: "won {w} · lost {l} · drawn {d}",
    recent_games: "Recent games",
    replay: "Replay",
    rating_chart: "Rating history",
    no_history: "No rated games yet.",
    board_empty_rating: "Nobody is listed yet: play {n} rated games (two or more people at the table) to be listed.",
    board_empty_points: "Nobody is listed yet: the points of rated games (two or more people at the table) show here.",
    seat_rating: "rating {r}",
    seat_escapes: "escapes {e}",
    seat_new: "new player",
    err_already_seated: "You are playing at another table; finish that game first.",
    err_bad_state: "Not possible now: {m}",
    err_offline: "Offline; try again in a moment.",
    err_rate_limited: "Too fast; wait a moment.",
    flagged: "results mostly against the same few players: not ranked for now",
    lobby: "Lobby",
    games: "Games",
    turn_timer: "Turn timer",
  },
};

/** A word of these screens in the page's language. */
export function w(key, params = {}) {
  const text = WORDS[getLang()][key] ?? WORDS.zh[key] ?? t(key, params);
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in params ? String(params[name]) : `{${name}}`));
}

/** A refused request in words: the code's sentence, with the server's message where it helps. */
export function errorText(error) {
  const key = `err_${error.code}`;
  if (WORDS.zh[key]) return w(key, { m: error.message || "" });
  return error.message || String(error);
}

/** A rate 0..1 as a percentage ("—" when there is none). */
export const percent = (rate) => (rate === null || rate === undefined ? "—" : `${Math.round(rate * 100)}%`);

/** A seat's rating and escape rate as the others see them, each labelled (docs/community.md): a
 *  bot's rating only ("等级分 1341"), "新玩家" for a person with neither yet. */
export function seatStats(player) {
  const known = (x) => x !== null && x !== undefined;
  const parts = [];
  if (known(player.rating)) parts.push(w("seat_rating", { r: player.rating })); // labelled, not a bare number
  if (!player.bot && known(player.escape_rate)) parts.push(w("seat_escapes", { e: percent(player.escape_rate) }));
  const line = el("div", "seat-stats", parts.length ? parts.join(" · ") : player.bot ? "" : w("seat_new"));
  line.dataset.role = "seat-stats";
  return line;
}

export const WORD_KEYS = { zh: Object.keys(WORDS.zh), en: Object.keys(WORDS.en) };
