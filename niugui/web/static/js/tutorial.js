// 新手教学 (guided first game): one fixed, friendly deal (tutorial.json, made by
// scripts/make_tutorial.py) against three bots, with a short line at each step — the ♦4 lead,
// following, passing, the black cards and sides, five-card plays, 接风, going out and scoring. The
// engine made your view at every step (on your turns its legal plays are the scripted move); the
// page only shows them and waits for your moves. It can be left at any step.

import { cardsText } from "./cards.js";
import { button, el } from "./dom.js";
import { getLang, t } from "./i18n.js";
import { api } from "./net.js";
import { resultPanel } from "./result.js";
import { TableView, botName } from "./table.js";

const BOT_MS = 700; // how long a bot's move stays before the next (a person can follow it)

const sameSet = (a, b) => a.length === b.length && a.every((c) => b.includes(c));

export class TutorialScreen {
  constructor(root, { onBack, langButton = null, nickname = "" }) {
    this.root = root;
    this.onBack = onBack;
    this.nickname = nickname;
    root.innerHTML = "";
    root.className = "table-screen tutorial-screen";
    const bar = el("div", "topbar");
    bar.append(button("tb-btn", `← ${t("tut_leave")}`, "leave-tutorial", () => onBack()));
    bar.append(el("div", "grow", t("tut_title")));
    if (langButton) bar.append(langButton());
    root.append(bar);
    this.line = el("div", "tutorial-line");
    this.line.dataset.role = "tutorial-line";
    this.line.setAttribute("aria-live", "polite");
    this.body = el("div", "");
    this.body.style.cssText = "flex:1;display:flex;flex-direction:column;min-height:0;";
    this.overlay = el("div", "overlay hidden");
    root.append(this.line, this.body, this.overlay);
    this.load();
  }

  destroy() {
    clearTimeout(this.timer);
    if (this.view) this.view.destroy();
  }

  async load() {
    try {
      this.start(await api("GET", "/tutorial.json"));
    } catch (error) {
      this.line.textContent = t("tut_failed", { why: error.message || String(error) });
    }
  }

  start(script) {
    this.you = script.you;
    this.lines = script.lines;
    this.steps = script.views; // your view after each number of actions
    this.actions = script.record.actions;
    const dealt = this.steps[this.steps.length - 1].dealt[this.you];
    this.black = dealt.find((c) => c === "S3" || c === "S2");
    this.seats = [0, 1, 2, 3].map((s) => ({
      player: s === this.you ? { id: null, nickname: this.nickname || t("you") } : { id: null, nickname: botName(s, "basic"), bot: "basic" },
      online: true,
      autoplay: false,
      ready: true,
    }));
    this.names = this.seats.map((x, s) => (s === this.you ? x.player.nickname : botName(s, "basic")));
    this.view = new TableView(this.body, { onPlay: (cards) => this.act(cards), onPass: () => this.act(null) });
    this.goTo(0);
  }

  /** Show the game after `step` actions, with the lines said there. */
  goTo(step) {
    this.step = step;
    this.pending = this.lines.filter((l) => l.step === step).map((l) => l.key);
    this.show();
  }

  /** The next action of the script (null at the end). */
  next() {
    return this.actions[this.step] || null;
  }

  show() {
    clearTimeout(this.timer);
    const next = this.next();
    const mine = Boolean(next && next.seat === this.you && !this.pending.length);
    this.view.update({ view: this.steps[this.step], me: this.you, seats: this.seats, totals: null, deadline: null });
    this.view.pending = this.pending.length > 0; // read the line first: 提示, 不出 and 出牌 wait for 继续
    this.view.refreshButtons();
    this.root.dataset.step = String(this.step);
    this.sayLine(next, mine);
    if (!next) this.finish();
    else if (!mine && !this.pending.length) this.timer = setTimeout(() => this.goTo(this.step + 1), BOT_MS);
  }

  /** The line of this step: the next one said here (with 继续), else what to do on your turn. */
  sayLine(next, mine) {
    this.line.innerHTML = "";
    if (this.pending.length) {
      const key = this.pending[0];
      const other = this.black === "S3" ? "♠2" : "♠3";
      const text = el("div", "say", t(key, { card: this.black === "S3" ? "♠3" : "♠2", partner: other }));
      text.dataset.key = key;
      const go = button("btn small", t("tut_next"), "tutorial-next", () => {
        this.pending.shift();
        this.show();
      });
      this.line.append(text, go);
      this.line.dataset.key = key;
      return;
    }
    this.line.dataset.key = "";
    if (mine) {
      const text = next.pass ? t("tut_do_pass") : t("tut_do_play", { cards: cardsText(next.play, getLang()) });
      this.line.append(el("div", "say do", text));
    }
  }

  /** Your move: the scripted one goes on; another is answered with what to play. */
  act(cards) {
    const next = this.next();
    if (!next || next.seat !== this.you) return;
    const right = cards === null ? Boolean(next.pass) : Boolean(next.play) && sameSet(cards, next.play);
    if (!right) {
      this.view.showError(next.pass ? t("tut_do_pass") : t("tut_wrong", { cards: cardsText(next.play, getLang()) }));
      return;
    }
    this.goTo(this.step + 1);
  }

  finish() {
    const buttons = [
      { label: t("tut_again"), action: "tutorial-again", primary: true, onClick: () => this.again() },
      { label: t("tut_leave"), action: "leave-tutorial-end", onClick: () => this.onBack() },
    ];
    const view = this.steps[this.step];
    this.overlay.innerHTML = "";
    const panel = resultPanel({ view, names: this.names, totals: null, proof: null, buttons });
    panel.dataset.tutorial = "done";
    this.overlay.append(panel);
    this.overlay.classList.toggle("hidden", this.pending.length > 0); // the last lines first
  }

  again() {
    this.overlay.classList.add("hidden");
    this.goTo(0);
  }
}
