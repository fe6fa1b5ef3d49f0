// The lobby's one-time offer of 新手教学 (tutorial.js), apart from it so the lobby loads no table code.

import { button, el } from "./dom.js";
import { t } from "./i18n.js";

export const SEEN = "niugui.tutorial"; // set once the lobby's offer was answered (shown once)

/**
 * The lobby's one-time offer of the guided game, or null once it was answered; e.g. a first visit
 * shows "第一次玩？…" with 开始教学 and 不用了.
 */
export function tutorialOffer(onStart) {
  if (localStorage.getItem(SEEN)) return null;
  const box = el("div", "panel tutorial-offer");
  box.dataset.role = "tutorial-offer";
  box.append(el("div", "", t("tut_offer")));
  const row = el("div", "row");
  row.append(
    button("btn small", t("tut_start"), "start-tutorial", () => {
      localStorage.setItem(SEEN, "1");
      onStart();
    }),
    button("btn small secondary", t("tut_no"), "skip-tutorial", () => {
      localStorage.setItem(SEEN, "1");
      box.remove();
    }),
  );
  box.append(row);
  return box;
}
