// Judging a selection, and nothing more: combinations and their order (RULES.md R13–R25, a port of
// niugui/combos.py) and the reason a selection cannot be played. Whose turn it is, tricks, going out
// and scores come from the server's views (replays too: POST /api/replay); the page never works
// them out. tests/browser/test_rules_js.py checks this file against the Python engine.

import { SMALL_JOKER, codeOf, indexOf } from "./cards.js";

export const LOOSE_KINDS = ["single", "pair", "triple", "four"];
export const FIVE = 5;
const CLASS_SPAN = 64;
const RANK_AT_POSITION = [10, 11, 12, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]; // R4: A 2 3 4 … K A
const WINDOWS = [];
const WINDOW_OF_RANKS = new Map();
for (let start = 0; start < 10; start++) {
  const w = RANK_AT_POSITION.slice(start, start + 5);
  WINDOWS.push(w);
  WINDOW_OF_RANKS.set(w.reduce((m, r) => m | (1 << r), 0), start);
}
const FLUSH_RANK = Array.from({ length: 13 }, (_, r) => (r < 10 ? r + 2 : { 10: 12, 11: 0, 12: 1 }[r]));

/** The combination some card codes form — {kind, group, value} — or null (R25). */
export function classify(codes) {
  const cards = codes.map(indexOf);
  if (cards.some((c) => c < 0) || new Set(cards).size !== cards.length) return null;
  const size = cards.length;
  if (size === 0 || size > 5) return null;
  const top = Math.max(...cards);
  if (size === 1) return { kind: "single", group: 1, value: top };
  const jokers = cards.filter((c) => c >= SMALL_JOKER).length;
  if (size < 5) {
    if (jokers || new Set(cards.map((c) => c >> 2)).size !== 1) return null;
    return { kind: LOOSE_KINDS[size - 1], group: size, value: top };
  }
  if (jokers) {
    if (jokers === 2) return null;
    const rest = cards.filter((c) => c < SMALL_JOKER);
    const rank = rest[0] >> 2;
    if (rest.every((c) => c >> 2 === rank)) return { kind: "four_plus_one", group: FIVE, value: 3 * CLASS_SPAN + rank };
    return null;
  }
  const counts = new Array(13).fill(0);
  for (const c of cards) counts[c >> 2]++;
  const shape = counts.filter((n) => n).sort((a, b) => b - a).join(",");
  if (shape === "4,1") return { kind: "four_plus_one", group: FIVE, value: 3 * CLASS_SPAN + counts.indexOf(4) };
  if (shape === "3,2") return { kind: "full_house", group: FIVE, value: 2 * CLASS_SPAN + counts.indexOf(3) };
  if (shape !== "1,1,1,1,1") return null;
  const suits = new Set(cards.map((c) => c & 3));
  const rankSet = counts.reduce((m, n, r) => (n ? m | (1 << r) : m), 0);
  const window = WINDOW_OF_RANKS.get(rankSet);
  if (window !== undefined) {
    const topCard = cards.find((c) => c >> 2 === WINDOWS[window][4]);
    const key = window * 4 + (topCard & 3);
    if (suits.size === 1) return { kind: "straight_flush", group: FIVE, value: 4 * CLASS_SPAN + key };
    return { kind: "straight", group: FIVE, value: key };
  }
  if (suits.size === 1) {
    const high = Math.max(...counts.map((n, r) => (n ? FLUSH_RANK[r] : -1)));
    return { kind: "flush", group: FIVE, value: CLASS_SPAN + high * 4 + [...suits][0] };
  }
  return null;
}

/** R17, R24: may `combo` be played on `other`? */
export const beats = (combo, other) => combo.group === other.group && combo.value > other.value;

/** True before the first play of a game (all 54 cards still in hands): R26 applies. */
export const noCardPlayed = (view) => Boolean(view) && view.counts.reduce((a, b) => a + b, 0) === 54;

const sameSet = (a, b) => a.length === b.length && a.every((c) => b.includes(c));

/**
 * Whether the selected codes may be played now, and if not, why (a rule id and a message key).
 * Legality comes from the view's legal_plays (the server's word); the reason is worked out here.
 * Returns {ok: true} or {ok: false, rule, key, params}.
 */
export function judgeSelection(view, selected) {
  if (!view || view.over) return { ok: false, rule: "R31", key: "why_over" };
  if (view.seat === null || view.seat === undefined) return { ok: false, rule: "", key: "why_watching" };
  if (view.to_move !== view.seat) return { ok: false, rule: "R27", key: "why_not_turn" };
  if (selected.length === 0) return { ok: false, rule: "", key: "why_select" };
  if ((view.legal_plays || []).some((p) => sameSet(p, selected))) return { ok: true };
  const combo = classify(selected);
  if (!combo) {
    const jokers = selected.filter((c) => c === "BJ" || c === "RJ").length;
    if (selected.length === 2 && jokers === 2) return { ok: false, rule: "R14", key: "why_jokers_pair" };
    if (selected.length === 2 && selected.includes("S3") && selected.includes("S2"))
      return { ok: false, rule: "R14", key: "why_not_combo" };
    if (selected.length === 5 && jokers) return { ok: false, rule: "R22", key: "why_joker_five" };
    if (selected.length > 5) return { ok: false, rule: "R25", key: "why_too_many" };
    return { ok: false, rule: "R25", key: "why_not_combo" };
  }
  if (noCardPlayed(view) && !selected.includes("D4")) return { ok: false, rule: "R26", key: "why_d4" };
  const current = view.current;
  if (current) {
    const last = classify(current.play);
    if (last && combo.group !== last.group) {
      const rule = combo.group === FIVE || last.group === FIVE ? "R24" : "R17";
      return { ok: false, rule, key: rule === "R24" ? "why_five_vs_loose" : "why_same_type", params: { kind: last.kind } };
    }
    if (last && !beats(combo, last)) return { ok: false, rule: combo.group === FIVE ? "R24" : "R17", key: "why_not_beat" };
  }
  return { ok: false, rule: "", key: "why_illegal" };
}

/**
 * A play's cards in the order a player reads them: straights in sequence (A2345 with the A low, R4),
 * a full house or four plus one with its triple or four first; anything else weakest first.
 */
export function displayOrder(codes) {
  const cards = codes.map(indexOf).sort((a, b) => a - b);
  const combo = classify(codes);
  if (combo && (combo.kind === "straight" || combo.kind === "straight_flush")) {
    const low = cards.some((c) => c >> 2 === 11 || c >> 2 === 12); // a 2 or a 3: the A counts low
    const position = (c) => {
      const r = c >> 2;
      if (r === 10) return low ? 0 : 13;
      if (r === 11) return 1;
      if (r === 12) return 2;
      return r + 3;
    };
    cards.sort((a, b) => position(a) - position(b));
  } else if (combo && (combo.kind === "full_house" || combo.kind === "four_plus_one")) {
    const count = (c) => cards.filter((d) => d < 52 && d >> 2 === c >> 2).length;
    cards.sort((a, b) => count(b) - count(a) || a - b);
  }
  return cards.map(codeOf);
}
