// The replay viewer: steps through a game forwards and backwards. The server computes every step
// with the engine (POST /api/replay for a record file or pasted text, GET /api/games/{id}/replay for
// a game of the server; docs/protocol.md "Replays"); the page only shows them. A finished game's
// replay shows every hand; a game in progress only what was public (R11, R12).

import { cardsText } from "./cards.js";
import { button, el } from "./dom.js";
import { getLang, t } from "./i18n.js";
import { api } from "./net.js";
import { resultPanel } from "./result.js";
import { TableView, botName, playerName } from "./table.js";

/** Seat names of a replay (its `seats`, from the record's meta), in the page's language. */
export function replayNames(replay) {
  return replay.seats.map((p, s) => (p.bot ? botName(s, p.bot) : (p.nickname && playerName(p)) || `${t("seat")} ${s + 1}`));
}

/** Why the server refused a replay, in the page's language (docs/protocol.md ReplayError). */
export function problemText(error) {
  const d = error.detail;
  if (!d || !d.code) return t("replay_failed", { why: error.message || String(error) });
  if (d.code === "illegal_action") {
    const reason = t(`illegal_${d.rule}`);
    return t("replay_illegal_action", { n: d.index + 1, why: reason === `illegal_${d.rule}` ? d.message : reason });
  }
  if (d.code === "too_large") return t("replay_too_large", { kb: Math.floor((d.limit || 65536) / 1024) });
  if (d.code === "bad_record") return t("replay_bad_record", { field: d.field || "—" });
  return t(`replay_${d.code}`);
}

export class ReplayScreen {
  constructor(root, { gameId = null, gameNo = null, code = null, onBack, langButton = null }) {
    this.root = root;
    this.onBack = onBack;
    this.timer = null;
    root.innerHTML = "";
    root.className = "table-screen replay-screen";
    const bar = el("div", "topbar");
    bar.append(button("tb-btn", `← ${t("back")}`, "back", () => onBack()));
    // titled as 战绩 names the game (第 3 局), not by the server's id
    bar.append(el("div", "grow", gameNo ? `${t("replay")} · ${t("game_no", { n: gameNo })}` : t("replay")));
    if (langButton) bar.append(langButton());
    root.append(bar);
    this.body = el("div", "");
    this.body.style.cssText = "flex:1;display:flex;flex-direction:column;min-height:0;";
    root.append(this.body);
    const asked = code ? `?code=${encodeURIComponent(code)}` : ""; // a private table's game (an event's board)
    if (gameId) this.load("GET", `/api/games/${encodeURIComponent(gameId)}/replay${asked}`);
    else this.showLoader();
  }

  destroy() {
    clearInterval(this.timer);
    if (this.view) this.view.destroy();
    document.removeEventListener("keydown", this.keyHandler);
  }

  /** Ask the server for the steps; on a refusal show why (with the server's words as details). */
  async load(method, path, text) {
    try {
      this.open(await api(method, path, text, { raw: true }));
    } catch (error) {
      this.showLoader(error, text);
    }
  }

  showLoader(error = null, text = "") {
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
    area.value = text || "";
    const err = el("div", "error-text", error ? problemText(error) : "");
    err.dataset.role = "replay-error";
    if (error && error.detail) err.dataset.code = error.detail.code;
    const show = button("btn", t("show"), "show-record", () => this.load("POST", "/api/replay", area.value));
    file.addEventListener("change", async () => {
      if (file.files && file.files[0]) this.load("POST", "/api/replay", await file.files[0].text());
    });
    const r1 = el("div", "row");
    r1.append(el("label", "", t("load_record")), file);
    panel.append(r1, area, el("div", "row"), show, err);
    if (error && error.detail && error.detail.message) {
      const details = el("details", "muted");
      details.append(el("summary", "", t("details")), el("code", "", error.detail.message));
      panel.append(details);
    }
    page.append(panel);
    this.body.append(page);
  }

  open(replay) {
    this.replay = replay;
    this.steps = replay.steps;
    this.step = 0;
    this.names = replayNames(replay);
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
    const n = this.steps.length - 1;
    controls.append(
      button("tb-btn", "«", "first", () => this.goTo(0)),
      button("tb-btn", "‹", "prev", () => this.goTo(this.step - 1)),
    );
    this.range = el("input");
    this.range.type = "range";
    this.range.min = "0";
    this.range.max = String(n);
    this.range.value = "0";
    this.range.dataset.role = "step-range";
    this.range.addEventListener("input", () => this.goTo(Number(this.range.value)));
    this.autoBtn = button("tb-btn", t("autoplay_btn"), "auto", () => this.toggleAuto());
    this.stepLabel = el("span", "step");
    this.stepLabel.dataset.role = "step";
    controls.append(
      this.range,
      button("tb-btn", "›", "next", () => this.goTo(this.step + 1)),
      button("tb-btn", "»", "last", () => this.goTo(n)),
      this.autoBtn,
      this.stepLabel,
    );
    this.lastAction = el("div", "banner info");
    this.lastAction.dataset.role = "last-action";
    this.body.append(controls, this.lastAction);
    if (!replay.finished) {
      const hidden = el("div", "banner info", t("replay_hands_hidden"));
      hidden.dataset.role = "hands-hidden";
      this.body.append(hidden);
    }
    this.body.append(tableRoot);
    this.resultBox = el("div", "overlay hidden");
    this.root.append(this.resultBox);
    this.dismissed = false;
    this.keyHandler = (event) => {
      if (event.key === "ArrowRight") this.goTo(this.step + 1);
      if (event.key === "ArrowLeft") this.goTo(this.step - 1);
    };
    document.addEventListener("keydown", this.keyHandler);
    this.show();
  }

  goTo(step) {
    this.step = Math.max(0, Math.min(step, this.steps.length - 1));
    this.show();
  }

  toggleAuto() {
    if (this.timer) {
      clearInterval(this.timer);
      this.timer = null;
      return;
    }
    this.timer = setInterval(() => {
      if (this.step >= this.steps.length - 1) {
        clearInterval(this.timer);
        this.timer = null;
        return;
      }
      this.goTo(this.step + 1);
    }, 700);
  }

  show() {
    const { view, hands, action } = this.steps[this.step];
    const replay = this.replay;
    const seats = replay.seats.map((player, s) => ({ seat: s, player: { id: null, ...player }, online: true, autoplay: false, ready: false }));
    // After a trick, the table shows it faded (as in a live game): the last step that had one.
    let before = this.step;
    while (before > 0 && !this.steps[before].view.trick.length) before--;
    this.view.lastTrick = this.steps[before].view.trick;
    this.view.update({ view, hands, me: null, bottom: this.bottom, seats, flip: replay.flip });
    this.root.dataset.step = String(this.step);
    this.range.value = String(this.step);
    this.stepLabel.textContent = t("step", { i: this.step, n: this.steps.length - 1 });
    let text = t("first_drawer", { name: this.names[replay.first_drawer] });
    if (action) {
      const who = this.names[action.seat];
      if (action.play) text = `${who}: ${cardsText(action.play, getLang())} (${t(`kind_${action.kind}`)})`;
      else if (action.pass) text = `${who}: ${t("passed")}`;
      else if (action.escape) text = `${who}: ${t("escaped")}`;
    }
    this.lastAction.textContent = text;
    this.resultBox.innerHTML = "";
    if (!view.over) this.dismissed = false;
    this.resultBox.classList.toggle("hidden", !view.over || this.dismissed);
    if (view.over && !this.dismissed) {
      const close = () => {
        this.dismissed = true;
        this.show();
      };
      const buttons = [{ label: "✕", action: "close-result", onClick: close }];
      this.resultBox.append(resultPanel({ view, names: this.names, totals: null, proof: replay.reveal, buttons }));
    }
  }
}
