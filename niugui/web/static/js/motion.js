// The table's animations (Web Animations API: no inline styles, within the page's CSP): cards fly from
// the seat to the table, five-card plays and 双牛鬼 get a short effect, a trick clears visibly. None of
// it runs under prefers-reduced-motion. Test hook: window.niuguiMotion = {started, kinds}.

import { el } from "./dom.js";

const hook = (window.niuguiMotion = window.niuguiMotion || { started: 0, kinds: [] });
const query = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : null;

export const reducedMotion = () => Boolean(query && query.matches);

function started(kind, animation) {
  hook.started += 1;
  hook.kinds.push(kind);
  return animation;
}

const centre = (rect) => [rect.left + rect.width / 2, rect.top + rect.height / 2];

/** Cards of a play fly from `from` (the seat's box, or your hand) to where they land. */
export function flyIn(row, from) {
  if (reducedMotion() || !row || !from || !row.animate) return null;
  const [x0, y0] = centre(from.getBoundingClientRect());
  const [x1, y1] = centre(row.getBoundingClientRect());
  const frames = [
    { transform: `translate(${x0 - x1}px, ${y0 - y1}px) scale(.55)`, opacity: 0.4 },
    { transform: "translate(0, 0) scale(1)", opacity: 1 },
  ];
  return started("fly", row.animate(frames, { duration: 280, easing: "cubic-bezier(.2,.7,.3,1)" }));
}

/** A short burst of text over `host` (a five-card play's name, 双牛鬼): shown, then removed. */
export function burst(host, text, kind) {
  if (reducedMotion() || !host || !host.animate) return null;
  const label = el("div", `burst ${kind}`, text);
  label.dataset.role = "burst";
  label.setAttribute("aria-hidden", "true");
  host.append(label);
  const frames = [
    { transform: "scale(.4)", opacity: 0 },
    { transform: "scale(1.25)", opacity: 1, offset: 0.3 },
    { transform: "scale(1)", opacity: 1, offset: 0.75 },
    { transform: "scale(1.1) translateY(-12px)", opacity: 0 },
  ];
  const animation = label.animate(frames, { duration: 1100, easing: "ease-out" });
  animation.onfinish = () => label.remove();
  return started(kind, animation);
}

/** The trick just cleared: its cards shrink and fade to the faded look of the last trick. */
export function clearTrick(rows) {
  if (reducedMotion()) return [];
  const frames = [
    { transform: "scale(1)", opacity: 1 },
    { transform: "scale(.82)", opacity: 0.45 },
  ];
  return [...rows].filter((r) => r.animate).map((r) => started("clear", r.animate(frames, { duration: 420, easing: "ease-in" })));
}
