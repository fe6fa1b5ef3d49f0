// 记牌器 (card counter): how many cards of each rank this seat has not seen yet — the deck less the
// cards played in public (R12) and the seat's own hand. It reads nothing else: another seat's hand
// never enters it (R11).

import { RANKS, RANK_NAMES } from "./cards.js";
import { el } from "./dom.js";
import { getLang } from "./i18n.js";
import { tt } from "./tablestrings.js";

/** Ranks strongest first as the counter shows them: 大王 小王 3 2 A … 4 (R3, R5). */
export const COUNTER_RANKS = ["RJ", "BJ", ...[...RANKS].reverse()];

/** The rank key of a card code: "RJ", "BJ", or its rank letter (R6). */
export const rankKey = (code) => (code === "RJ" || code === "BJ" ? code : code[1]);

/** {rank: unseen} from the cards played so far and the seat's own hand (none for a spectator). */
export function unseen(played, hand = []) {
  const left = Object.fromEntries(COUNTER_RANKS.map((r) => [r, r.length === 2 ? 1 : 4]));
  for (const code of [...played, ...hand]) left[rankKey(code)] -= 1;
  return left;
}

/** Every card played in a view's history (a snapshot's): plays only, in order. */
export const playedIn = (history) => (history || []).filter((a) => a.play).flatMap((a) => a.play);

const label = (rank) => {
  if (rank === "RJ") return getLang() === "zh" ? "大王" : "Big joker";
  if (rank === "BJ") return getLang() === "zh" ? "小王" : "Joker";
  return RANK_NAMES[RANKS.indexOf(rank)];
};

/** The counter as a row of rank/count cells (data-rank, data-left; a rank all seen is dimmed and struck). */
export function counterPanel(left) {
  const box = el("div", "counter");
  box.dataset.role = "counter";
  box.setAttribute("role", "table");
  box.setAttribute("aria-label", tt("counter_title"));
  const caption = el("div", "caption", tt("counter_caption")); // what it counts, in words (issue 28)
  caption.dataset.role = "counter-caption";
  caption.setAttribute("role", "caption");
  box.append(caption);
  for (const rank of COUNTER_RANKS) {
    const cell = el("div", `cell${left[rank] === 0 ? " gone" : ""}`);
    cell.dataset.rank = rank;
    cell.dataset.left = String(left[rank]);
    cell.setAttribute("role", "cell");
    cell.setAttribute("aria-label", tt("counter_cell", { rank: label(rank), n: left[rank] }));
    const short = rank === "RJ" ? (getLang() === "zh" ? "大" : "JK") : rank === "BJ" ? (getLang() === "zh" ? "小" : "jk") : label(rank);
    cell.append(el("span", "r", short), el("b", "", left[rank]));
    box.append(cell);
  }
  return box;
}
