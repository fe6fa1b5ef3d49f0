// The replay viewer: steps through any game record (RECORD.md) forwards and backwards. The record is
// replayed here, in the page, by following its actions (rules.js); every hand is shown.

import { cardsText } from "./cards.js";
import { getLang, t } from "./i18n.js";
import { api } from "./net.js";
import { resultPanel } from "./result.js";
import { ReplayGame } from "./rules.js";
import { TableView, botName } from "./table.js";

const el = (tag, cls = "", text = "") => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== "") e.textContent = text;
  return e;
};

/** Seat names from a record's meta, whatever shape the server gave them. */
export function recordNames(record) {
  const meta = record.meta || {};
  const list = meta.players || meta.names || meta.seats || [];
  return [0, 1, 2, 3].map((s) => {
    const p = list[s];
    if (typeof p === "string") return p;
    if (p && typeof p === "object") {
      if (p.bot) return botName(s, p.bot);
      return p.nickname || p.name || `${t("seat")} ${s + 1}`;
    }
    return `${t("seat")} ${s + 1}`;
  });
}

export class ReplayScreen {
  constructor(root, { gameId = null, onBack }) {
    this.root = root;
    this.onBack = onBack;
    this.timer = null;
    root.innerHTML = "";
    root.className = "table-screen";
    const bar = el("div", "topbar");
    const back = el("button", "tb-btn", `← ${t("back")}`);
    back.addEventListener("click", () => onBack());
    bar.append(back, el("div", "grow", `${t("replay")}${gameId ? ` #${gameId}` : ""}`));
    root.append(bar);
    this.body = el("div", "");
    this.body.style.cssText = "flex:1;display:flex;flex-direction:column;min-height:0;";
    root.append(this.body);
    if (gameId) this.loadGame(gameId);
    else this.showLoader();
  }

  destroy() {
    clearInterval(this.timer);
    if (this.view) this.view.destroy();
    document.removeEventListener("keydown", this.keyHandler);
  }

  async loadGame(gameId) {
    try {
      const record = await api("GET", `/api/games/${encodeURIComponent(gameId)}/record`);
      this.open(record);
    } catch (error) {
      this.showLoader(String(error.message || error));
    }
  }

  showLoader(errorText = "") {
    this.body.innerHTML = "";
    const page = el("div", "page");
    const panel = el("div", "panel");
    panel.append(el("h2", "", t("replay")));
    const file = el("input");
    file.type = "file";
    file.accept = ".json,application/json";
    file.dataset.role = "record-file";
    const area = el("textarea");
    area.rows = 6;
    area.style.width = "100%";
    area.placeholder = t("paste_record");
    area.dataset.role = "record-text";
    const err = el("div", "error-text", errorText);
    const show = el("button", "btn", t("show"));
    show.dataset.action = "show-record";
    const tryOpen = (text) => {
      try {
        this.open(JSON.parse(text));
      } catch (error) {
        err.textContent = String(error.message || error);
      }
    };
    file.addEventListener("change", async () => {
      if (file.files && file.files[0]) tryOpen(await file.files[0].text());
    });
    show.addEventListener("click", () => tryOpen(area.value));
    const r1 = el("div", "row");
    r1.append(el("label", "", t("load_record")), file);
    panel.append(r1, area, el("div", "row"), show, err);
    page.append(panel);
    this.body.append(page);
  }

  open(record) {
    this.game = new ReplayGame(record);
    this.names = recordNames(record);
    this.bottom = 0;
    this.body.innerHTML = "";
    const tableRoot = el("div", "");
    tableRoot.style.cssText = "flex:1;display:flex;flex-direction:column;min-height:0;";
    this.view = new TableView(tableRoot, {}, { replay: true });
    tableRoot.addEventListener("click", (event) => {
      const seat = event.target.closest(".seat");
      if (seat) {
        this.bottom = Number(seat.dataset.seat);
        this.show();
      }
    });
    const controls = el("div", "replay-controls");
    const button = (label, action, fn) => {
      const b = el("button", "tb-btn", label);
      b.dataset.action = action;
      b.addEventListener("click", fn);
      controls.append(b);
      return b;
    };
    const n = this.game.actions.length;
    button("«", "first", () => this.goTo(0));
    button("‹", "prev", () => this.goTo(this.game.step - 1));
    this.range = el("input");
    this.range.type = "range";
    this.range.min = "0";
    this.range.max = String(n);
    this.range.value = "0";
    this.range.addEventListener("input", () => this.goTo(Number(this.range.value)));
    controls.append(this.range);
    button("›", "next", () => this.goTo(this.game.step + 1));
    button("»", "last", () => this.goTo(n));
    this.autoBtn = button(t("autoplay_btn"), "auto", () => this.toggleAuto());
    this.stepLabel = el("span", "step");
    this.stepLabel.dataset.role = "step";
    controls.append(this.stepLabel);
    this.lastAction = el("div", "banner info");
    this.lastAction.dataset.role = "last-action";
    this.body.append(controls, this.lastAction, tableRoot);
    this.resultBox = el("div", "overlay hidden");
    this.root.append(this.resultBox);
    this.dismissed = false;
    this.keyHandler = (event) => {
      if (event.key === "ArrowRight") this.goTo(this.game.step + 1);
      if (event.key === "ArrowLeft") this.goTo(this.game.step - 1);
    };
    document.addEventListener("keydown", this.keyHandler);
    this.show();
  }

  goTo(step) {
    this.game.goTo(step);
    this.show();
  }

  toggleAuto() {
    if (this.timer) {
      clearInterval(this.timer);
      this.timer = null;
      return;
    }
    this.timer = setInterval(() => {
      if (this.game.step >= this.game.actions.length) {
        clearInterval(this.timer);
        this.timer = null;
        return;
      }
      this.goTo(this.game.step + 1);
    }, 700);
  }

  show() {
    const game = this.game;
    const view = game.view(null);
    const meta = game.record.meta || {};
    const seats = this.names.map((nickname, s) => {
      const bot = ((meta.players || [])[s] || {}).bot || null;
      return { seat: s, player: { id: null, nickname, bot }, online: true, autoplay: false, ready: false };
    });
    this.view.update({ view, me: null, bottom: this.bottom, seats, flip: meta.flip || null });
    this.range.value = String(game.step);
    this.stepLabel.textContent = t("step", { i: game.step, n: game.actions.length });
    const last = game.history[game.history.length - 1];
    let text = "";
    if (last) {
      const who = this.names[last.seat];
      if (last.play) text = `${who}: ${cardsText(last.play, getLang())} (${t(`kind_${last.kind}`)})`;
      else if (last.pass) text = `${who}: ${t("passed")}`;
      else if (last.escape) text = `${who}: ${t("escaped")}`;
    } else {
      text = t("first_drawer", { name: this.names[game.firstDrawer] });
    }
    this.lastAction.textContent = text;
    this.resultBox.innerHTML = "";
    if (!view.over) this.dismissed = false;
    this.resultBox.classList.toggle("hidden", !view.over || this.dismissed);
    if (view.over && !this.dismissed) {
      const meta = game.record.meta || {};
      const proof = meta.salt && game.record.deck ? { commitment: meta.commitment, salt: meta.salt, deck: game.record.deck } : null;
      const close = () => {
        this.dismissed = true;
        this.show();
      };
      const buttons = [{ label: "✕", action: "close-result", onClick: close }];
      this.resultBox.append(resultPanel({ view, names: this.names, totals: null, proof, buttons }));
    }
  }
}
