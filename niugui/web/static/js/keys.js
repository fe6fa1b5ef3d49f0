// Keyboard play (desktop): type a rank to pick a card of it (0 or T is 10, X 小王, Y 大王; again picks
// the next one, and once all are picked the same key drops them), Enter plays, P passes, H hints,
// Esc or Backspace clears the selection. Keys typed into a form field are left alone.

const RANK_KEYS = { 0: "T", t: "T", j: "J", q: "Q", k: "K", a: "A", x: "BJ", y: "RJ" };
for (const r of "23456789") RANK_KEYS[r] = r;

/** The card key ("T", "BJ" …) a keyboard key picks, or null. */
export const rankOfKey = (key) => RANK_KEYS[String(key).toLowerCase()] ?? null;

const ofRank = (code, rank) => (rank.length === 2 ? code === rank : code.length === 2 && code[1] === rank && code !== "BJ" && code !== "RJ");

/** The selection after typing `rank` with `hand` (weakest first) and `selected` (a Set). */
export function pickRank(hand, selected, rank) {
  const cards = hand.filter((c) => ofRank(c, rank));
  if (!cards.length) return selected;
  const next = cards.find((c) => !selected.has(c));
  const result = new Set(selected);
  if (next) result.add(next);
  else for (const c of cards) result.delete(c);
  return result;
}

/** Listen for table keys on the document; `view` is the TableView. Returns the function that stops. */
export function listenKeys(view) {
  const onKey = (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    if (target && target.closest && target.closest("input, select, textarea, [contenteditable]")) return;
    const onCard = Boolean(target && target.closest && target.closest(".hand .card"));
    const onOtherButton = !onCard && target && target.closest && target.closest("button, a");
    const key = event.key;
    if (key === "Enter") {
      if (onOtherButton) return;
      event.preventDefault();
      view.play();
      return;
    }
    const lower = key.length === 1 ? key.toLowerCase() : key;
    if (lower === "p") view.pass();
    else if (lower === "h") view.hint();
    else if (key === "Escape" || key === "Backspace") view.setSelection([]);
    else {
      const rank = rankOfKey(key);
      if (!rank) return;
      view.pickRank(rank);
    }
    event.preventDefault();
  };
  document.addEventListener("keydown", onKey);
  return () => document.removeEventListener("keydown", onKey);
}
