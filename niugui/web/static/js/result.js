// The end of a game: the outcome by name, each seat's score change and running total (R32–R36),
// every hand revealed, and the fairness proof with a one-click check.

import { cardElement, sortCodes } from "./cards.js";
import { verifyProof } from "./fairness.js";
import { getLang, t } from "./i18n.js";
import { el } from "./dom.js";

const signed = (n) => (n > 0 ? `+${n}` : String(n));
const listOf = (names) => names.join(getLang() === "zh" ? "、" : ", ");

/**
 * Which side won and with which seats (R32–R35): {key: won_red | won_black | won_double | won_draw,
 * seats}, or null for an escape (R35: only the escaper's score changes; nobody won).
 */
export function winners(result) {
  const { mode, outcome, finish, black } = result;
  if (outcome === "escape") return null;
  if (outcome === "draw" || outcome === "double_draw") return { key: "won_draw", seats: [] };
  const red = [0, 1, 2, 3].filter((s) => !black.includes(s));
  if (mode === "1v3") return outcome === "double_win" ? { key: "won_double", seats: black } : { key: "won_red", seats: red };
  const blackWon = black.includes(finish[0]); // the side of the 上游 wins (R32)
  return blackWon ? { key: "won_black", seats: black } : { key: "won_red", seats: red };
}

/**
 * What the game means for the seat whose view it is (none in a spectator's view or a replay's):
 * {verdict: won | lost | draw | escaped | unscored, text}, e.g. 你赢了 +2 (R32–R35).
 */
export function personal(result, seat, names) {
  if (seat === null || seat === undefined) return null;
  const delta = result.scores[seat];
  if (result.outcome === "escape") {
    if (delta < 0) return { verdict: "escaped", text: t("you_escaped", { delta: signed(delta) }) };
    const who = result.scores.findIndex((d) => d < 0);
    return { verdict: "unscored", text: t("you_unscored", { name: who >= 0 ? names[who] : "" }) };
  }
  if (delta > 0) return { verdict: "won", text: t("you_won", { delta: signed(delta) }) };
  if (delta < 0) return { verdict: "lost", text: t("you_lost", { delta: signed(delta) }) };
  return { verdict: "draw", text: t("you_draw") };
}

/**
 * opts: {view (over), names[4], totals[4] | null, proof {commitment, salt, deck} | null,
 *        buttons: [{label, action, onClick, primary}], ready[4] | null (between games: who is ready),
 *        rated: "rated_yes" | "rated_alone" | "rated_off" | null (whether the game moved ratings)}
 */
export function resultPanel(opts) {
  const { view, names, totals, proof } = opts;
  const result = view.result;
  const box = el("div", "result");
  box.dataset.role = "result";
  box.dataset.outcome = result.outcome;
  const mine = personal(result, view.seat, names);
  if (mine) {
    const line = el("div", `you-result ${mine.verdict}`, mine.text);
    line.dataset.role = "you-result";
    line.dataset.verdict = mine.verdict;
    box.append(line);
  }
  const won = winners(result);
  if (won) {
    const head = el("div", `winner ${won.key}`, t(won.key));
    head.dataset.role = "winner";
    head.dataset.side = won.key;
    if (won.seats.length) head.append(el("span", "who", ` · ${listOf(won.seats.map((s) => names[s]))}`));
    box.append(head);
  }
  box.append(el("h2", "", t(`outcome_${result.outcome}`)));
  const explain = el("div", "explain", t(`outcome_explain_${result.outcome}`));
  explain.dataset.role = "outcome-explain";
  box.append(explain);
  const black = listOf(result.black.map((s) => names[s]));
  const colon = getLang() === "zh" ? "：" : ": ";
  const side = result.mode === "1v3" ? `${t("double")}${colon}${black}` : `${t("black_side")}${colon}${black}`;
  box.append(el("div", "sub", `${t(`mode_${result.mode}`)} · ${side}`));
  if (opts.progress) {
    // a session of N games (issue 29): which game this was, and how many are left
    const { n, m } = opts.progress;
    const line = el("div", "sub session-progress", t(n < m ? "session_progress" : "session_progress_last", { n, m, left: m - n }));
    line.dataset.role = "session-progress";
    box.append(line);
  }
  if (opts.rated) {
    const line = el("div", `sub rated ${opts.rated}`, t(opts.rated));
    line.dataset.role = "rated";
    line.dataset.rated = opts.rated;
    box.append(line);
  }
  if (opts.ready) {
    const ready = [0, 1, 2, 3].filter((s) => opts.ready[s]).map((s) => names[s]);
    const line = el("div", "sub ready-list", t("ready_list", { names: ready.length ? listOf(ready) : t("nobody") }));
    line.dataset.role = "ready-list";
    box.append(line);
  }

  const table = el("table", "grid");
  const head = el("tr");
  for (const [text, cls] of [[t("seat"), ""], ["", ""], [t("change"), "num"], [t("total"), "num"]]) head.append(el("th", cls, text));
  table.append(head);
  for (let s = 0; s < 4; s++) {
    const row = el("tr");
    row.dataset.seat = String(s);
    if (s === view.seat) {
      row.classList.add("you");
      row.dataset.you = "true";
    }
    const place = result.finish.indexOf(s);
    row.dataset.place = String(place);
    const isBlack = result.black.includes(s);
    row.append(el("td", "", `${names[s]}${s === view.seat ? ` (${t("you")})` : ""}${isBlack ? " ♠" : ""}`));
    row.append(el("td", "", result.outcome === "escape" && place < 0 ? (result.scores[s] < 0 ? t("escaped") : "") : t(`place_${place < 0 ? 3 : place}`)));
    const delta = result.scores[s];
    const d = el("td", `num ${delta > 0 ? "pos" : delta < 0 ? "neg" : ""}`, signed(delta));
    d.dataset.role = "delta";
    row.append(d);
    row.append(el("td", "num", totals ? signed(totals[s]) : ""));
    table.append(row);
  }
  box.append(table);
  const buttons = el("div", "buttons");
  for (const b of opts.buttons || []) {
    const btn = el("button", `btn${b.primary ? "" : " secondary"}`, b.label);
    btn.dataset.action = b.action;
    if (b.disabled) btn.disabled = true;
    btn.addEventListener("click", b.onClick);
    buttons.append(btn);
  }
  box.append(buttons);

  const hands = el("div", "hands");
  hands.append(el("h3", "", t("hands_left")));
  for (let s = 0; s < 4; s++) {
    const row = el("div", "hrow");
    row.append(el("div", "hname", names[s]));
    const cards = el("div", "cards-row");
    const left = (view.hands || [])[s] || [];
    for (const c of sortCodes(left)) cards.append(cardElement(c, { size: "sm" }));
    if (!left.length) cards.append(el("span", "muted", "—"));
    row.append(cards);
    hands.append(row);
  }
  const dealt = el("details");
  dealt.append(el("summary", "", t("dealt")));
  for (let s = 0; s < 4; s++) {
    const row = el("div", "hrow");
    row.append(el("div", "hname", names[s]));
    const cards = el("div", "cards-row");
    for (const c of sortCodes((view.dealt || [])[s] || [])) cards.append(cardElement(c, { size: "mini" }));
    row.append(cards);
    dealt.append(row);
  }
  hands.append(dealt);
  box.append(hands);

  if (proof && proof.salt && proof.deck) box.append(proofBox(proof, view));
  return box;
}

function proofBox(proof, view) {
  const box = el("div", "proof");
  box.dataset.role = "proof";
  box.append(el("div", "", t("fairness")));
  const line = (label, value) => {
    const d = el("div");
    d.append(el("b", "", `${label}: `));
    d.append(el("code", "", value));
    return d;
  };
  box.append(line(t("commitment"), proof.commitment));
  box.append(line(t("salt"), proof.salt));
  const deck = el("details");
  deck.append(el("summary", "", t("deck")));
  deck.append(el("code", "", proof.deck.join(",")));
  box.append(deck);
  const btn = el("button", "btn small", t("verify"));
  btn.dataset.action = "verify";
  const verdict = el("div", "verdict");
  verdict.dataset.role = "verdict";
  btn.addEventListener("click", async () => {
    const check = await verifyProof(proof, view.dealt, view.first_drawer);
    verdict.className = `verdict ${check.ok ? "ok" : "bad"}`;
    verdict.dataset.ok = String(check.ok);
    verdict.textContent = check.ok
      ? `✓ ${t("verify_ok")}`
      : `✗ ${t("verify_bad", { why: !check.publishedOk ? t("verify_published_bad") : check.hashOk ? t("verify_deal_bad") : t("verify_hash_bad") })}`;
  });
  box.append(btn, verdict);
  return box;
}
