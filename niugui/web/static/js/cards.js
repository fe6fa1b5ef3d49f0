// Cards and their notation (RULES.md R1–R6). A card is an index 0..53 in strength order (R5):
// rank * 4 + suit for suited cards, 52 = 小王 (BJ), 53 = 大王 (RJ). Codes are R6's: S3, D4, HT, BJ, RJ.

import { el } from "./dom.js";
import { getLang } from "./i18n.js";
import { tt } from "./tablestrings.js";

export const SUITS = "DCHS"; // R2: ♦ < ♣ < ♥ < ♠
export const SUIT_SYMBOLS = "♦♣♥♠";
export const RANKS = "456789TJQKA23"; // R3: 4 < 5 < … < A < 2 < 3
export const RANK_NAMES = ["4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "3"];
export const SMALL_JOKER = 52;
export const BIG_JOKER = 53;

/** The index of a card code (R6), or -1 when the text is not a card code. */
export function indexOf(code) {
  if (code === "BJ") return SMALL_JOKER;
  if (code === "RJ") return BIG_JOKER;
  if (typeof code !== "string" || code.length !== 2) return -1;
  const suit = SUITS.indexOf(code[0]);
  const rank = RANKS.indexOf(code[1]);
  return suit < 0 || rank < 0 ? -1 : rank * 4 + suit;
}

/** The canonical code of a card index. */
export function codeOf(index) {
  if (index === SMALL_JOKER) return "BJ";
  if (index === BIG_JOKER) return "RJ";
  return SUITS[index & 3] + RANKS[index >> 2];
}

export const isJoker = (code) => code === "BJ" || code === "RJ";
export const isRed = (code) => code === "RJ" || code[0] === "H" || code[0] === "D";

/** Rank text of a code (e.g. "10"), or the joker's name. */
export function rankName(code, lang = "zh") {
  if (code === "BJ") return lang === "zh" ? "小王" : "Joker";
  if (code === "RJ") return lang === "zh" ? "大王" : "JOKER";
  return RANK_NAMES[RANKS.indexOf(code[1])];
}

export function suitSymbol(code) {
  return isJoker(code) ? "" : SUIT_SYMBOLS[SUITS.indexOf(code[0])];
}

/** Human text of one card: ♠3, ♥10, 小王. */
export function cardText(code, lang = "zh") {
  if (code === "BJ") return lang === "zh" ? "小王" : "small joker";
  if (code === "RJ") return lang === "zh" ? "大王" : "big joker";
  return suitSymbol(code) + rankName(code);
}

export const cardsText = (codes, lang = "zh") => codes.map((c) => cardText(c, lang)).join(" ");

/** What a screen reader says for a card, in the page's language: 黑桃3, 红桃10, 小王 / 3 of spades. */
export function cardLabel(code) {
  const lang = getLang();
  if (isJoker(code)) return cardText(code, lang);
  const suit = tt(`suit_${code[0]}`);
  return lang === "zh" ? suit + rankName(code) : `${rankName(code)} of ${suit}`;
}

/** Codes sorted weakest first (R5). */
export function sortCodes(codes) {
  return [...codes].sort((a, b) => indexOf(a) - indexOf(b));
}

/** Codes grouped by suit (♦ ♣ ♥ ♠, jokers last), each suit weakest first: for spotting flushes. */
export function sortBySuit(codes) {
  const key = (code) => {
    const i = indexOf(code);
    return i >= SMALL_JOKER ? 100 + i : (i & 3) * 13 + (i >> 2);
  };
  return [...codes].sort((a, b) => key(a) - key(b));
}

/** One card drawn in HTML/CSS (text glyphs scale crisply at any size). */
export function cardElement(code, { size = "", selectable = false, attr = "card" } = {}) {
  const card = el(selectable ? "button" : "div", `card ${isRed(code) ? "red" : "black"}${size ? " " + size : ""}`);
  if (selectable) card.type = "button";
  card.dataset[attr] = code; // data-card for cards of hands and plays; the 翻牌 card uses data-flip
  card.setAttribute("aria-label", cardLabel(code));
  if (isJoker(code)) {
    card.classList.add("joker", code === "RJ" ? "big" : "small");
    card.innerHTML =
      `<span class="corner"><span class="jk">${code === "RJ" ? "大" : "小"}<br>王</span></span>` +
      `<span class="pip joker-face">${code === "RJ" ? "★" : "☆"}</span>`;
  } else {
    const rank = rankName(code);
    const suit = suitSymbol(code);
    card.innerHTML =
      `<span class="corner"><span class="rk${rank === "10" ? " ten" : ""}">${rank}</span>` +
      `<span class="st">${suit}</span></span><span class="pip">${suit}</span>`;
  }
  return card;
}

/** A face-down card back (for seats' card counts: shows nothing of the cards). */
export function cardBack(size = "") {
  return el("div", `card back${size ? " " + size : ""}`);
}
