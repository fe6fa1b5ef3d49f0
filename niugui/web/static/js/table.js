// The table: four seats around the felt (you at the bottom, play order counter-clockwise), the
// current trick, your hand with Play / Pass / Hint. It renders only what the view says (R11, R12).

import { cardBack, cardElement, cardLabel, cardText, sortBySuit, sortCodes } from "./cards.js";
import { getLang, t } from "./i18n.js";
import { listenKeys, pickRank } from "./keys.js";
import { burst, clearTrick, flyIn } from "./motion.js";
import { displayOrder, judgeSelection, noCardPlayed } from "./rules.js";
import { tt } from "./tablestrings.js";
import { el, styleSheet } from "./dom.js";
import { seatStats } from "./words.js";

// The table's own styles (css/table.css), not in the first screen's app.css: this module (and so
// the table and replay screens) waits for them, so that no table is ever drawn unstyled.
await styleSheet(new URL("../css/table.css", import.meta.url).href);

const AUTOPASS = "niugui.autopass";
/** 自动不出 (pass at once when nothing beats), remembered on this device. */
export const autoPassOn = () => localStorage.getItem(AUTOPASS) === "1";

const MIN_STEP = 18; // px of an overlapped hand card left to tap: its rank and suit still show
const POSITIONS = ["bottom", "right", "top", "left"]; // counter-clockwise from you (R7)

/** The seat shown at a position, given the seat at the bottom. */
export const seatAt = (bottom, rel) => (bottom + rel) % 4;

/** A bot's name in the page's language: 机器人2 / Bot 2 (its level is in the table's settings). */
export const botName = (seat, level) => `${t("bot")}${getLang() === "zh" ? "" : " "}${seat + 1}`;

/** A player's nickname; a bot account's says it is a bot (docs/protocol.md "Bot accounts"). */
export const playerName = (p) => (p.bot_account ? `${p.nickname} · ${t("bot")}` : p.nickname);

/** Who sits in a seat, from the table state's `seats` (docs/protocol.md `SeatState`): null when empty. */
const playerAt = (state, seat) => (state.seats && state.seats[seat] && state.seats[seat].player) || null;

/**
 * The side your own dealt hand tells you (R10, R11), as your bar shows it: only in your own view
 * (`view.side` is in a seat's view, never in another seat's or a spectator's). A black seat's
 * partner holds the other black card: the one not in its hand nor among its own marks.
 * e.g. sideChip({side: "black", hand: ["S3"], marks: [[], [], [], []]}, 0) says 黑方·队友持♠2; a tap
 * (or hovering) tells the whole of it.
 */
export function sideChip(view, seat) {
  const mine = [...(view.hand || []), ...((view.marks || [])[seat] || [])];
  const card = mine.includes("S3") ? "♠2" : "♠3";
  const chip = el("button", `chip side ${view.side}`, t(`side_${view.side}`, { card }));
  chip.dataset.role = "side";
  chip.dataset.side = view.side;
  chip.title = t(`side_help_${view.side}`, { card });
  chip.setAttribute("aria-label", chip.title);
  return chip;
}

/** A seat's name: its player's nickname, a bot's name, or "Seat n". */
export function seatName(state, seat) {
  const p = playerAt(state, seat);
  if (!p) return `${t("seat")} ${seat + 1}`;
  return p.bot ? botName(seat, p.bot) : (p.nickname && playerName(p)) || `${t("seat")} ${seat + 1}`;
}

export class TableView {
  /** root: element to fill; actions: {onPlay(codes), onPass()}; options: {replay: bool} */
  constructor(root, actions = {}, options = {}) {
    this.root = root;
    this.actions = actions;
    this.replay = Boolean(options.replay);
    this.selected = new Set();
    this.hintIndex = -1;
    this.state = null;
    this.lastTrick = [];
    this.pending = false;
    this.groups = []; // 理牌: groups of cards kept together at the left of the hand, in order
    this.timerHandle = setInterval(() => this.tick(), 250);
    this.build();
    this.stopKeys = this.replay ? null : listenKeys(this);
    this.onResize = () => this.fitHand();
    window.addEventListener("resize", this.onResize); // a phone turned sideways: fit the hand again
  }

  destroy() {
    clearInterval(this.timerHandle);
    if (this.stopKeys) this.stopKeys();
    window.removeEventListener("resize", this.onResize);
  }

  build() {
    this.root.innerHTML = "";
    this.felt = el("div", "felt");
    this.slots = {};
    this.seatBoxes = {};
    for (const pos of ["top", "left", "right"]) {
      const box = el("div", `seat-${pos}`);
      this.seatBoxes[pos] = box;
      this.felt.append(box);
    }
    this.center = el("div", "center");
    this.centerInfo = el("div", "center-info");
    this.center.append(this.centerInfo);
    for (const pos of POSITIONS) {
      const slot = el("div", `play-slot p-${pos}`);
      slot.dataset.pos = pos;
      this.slots[pos] = slot;
      this.center.append(slot);
    }
    this.felt.append(this.center);
    this.note = el("div", "felt-note");
    this.felt.append(this.note);
    // quick-chat bubbles, one anchor per position (kept across renders)
    this.bubbleAnchors = {};
    for (const pos of POSITIONS) {
      const anchor = el("div", `bubble-anchor b-${pos}`);
      this.bubbleAnchors[pos] = anchor;
      this.felt.append(anchor);
    }
    this.drawer = el("div", "drawer hidden"); // filled by the screen: the 记牌器, the chat panel
    this.drawer.dataset.role = "drawer";
    this.meBar = el("div", "me-bar");
    this.msgLine = el("div", "msg-line");
    this.msgLine.dataset.role = "message";
    this.actionsBar = el("div", "actions");
    this.hintBtn = el("button", "btn hint", t("hint"));
    this.hintBtn.dataset.action = "hint";
    this.passBtn = el("button", "btn pass", t("pass"));
    this.passBtn.dataset.action = "pass";
    this.playBtn = el("button", "btn play", t("play"));
    this.playBtn.dataset.action = "play";
    this.hintBtn.addEventListener("click", () => this.hint());
    this.passBtn.addEventListener("click", () => this.pass());
    this.playBtn.addEventListener("click", () => this.play());
    this.actionsBar.append(this.hintBtn, this.passBtn, this.playBtn);
    this.actionsBar.setAttribute("aria-keyshortcuts", "Enter P H");
    this.actionsBar.title = tt("keys_help");
    this.keysHelp = el("div", "keys-help", tt("keys_help")); // in sight where there is a keyboard (CSS)
    this.keysHelp.dataset.role = "keys-help";
    this.handWrap = el("div", "hand-wrap");
    this.hand = el("div", "hand");
    this.hand.dataset.role = "hand";
    this.handWrap.append(this.hand);
    // Tap a card to select it, or slide a finger across several (each card the finger crosses takes
    // the state of the first one); Enter/Space on a focused card toggles it too.
    this.hand.addEventListener("pointerdown", (event) => {
      const card = event.target.closest(".card");
      if (!card || this.replay) return;
      event.preventDefault();
      this.drag = { select: !this.selected.has(card.dataset.card), seen: new Set() };
      this.dragOver(card);
    });
    this.hand.addEventListener("pointermove", (event) => {
      if (!this.drag) return;
      const under = document.elementFromPoint(event.clientX, event.clientY);
      const card = under && under.closest(".hand .card");
      if (card) this.dragOver(card);
    });
    const stop = () => (this.drag = null);
    window.addEventListener("pointerup", stop);
    window.addEventListener("pointercancel", stop);
    this.hand.addEventListener("click", (event) => {
      const card = event.target.closest(".card");
      if (card && event.detail === 0 && !this.replay) this.toggle(card.dataset.card, card);
    });
    this.msgLine.setAttribute("aria-live", "polite");
    // Your turn's clock over any panel (the rules card, chat, 记牌器): the timer runs on while you
    // read, so it stays in sight, and warns at 5 s (issue 28).
    this.turnClock = el("div", "turn-clock hidden");
    this.turnClock.dataset.role = "turn-clock";
    this.turnClock.setAttribute("role", "timer");
    this.turnClock.setAttribute("aria-live", "assertive");
    this.root.append(this.felt, this.drawer, this.meBar, this.msgLine, this.actionsBar, this.keysHelp, this.handWrap, this.turnClock);
  }

  /** Show a new state: {view, me, seats, totals, deadline, flip, pending} — `view`, `seats`, `totals`
   *  and `flip` exactly as the protocol sends them (the view, and TableState's fields); a replay adds
   *  hands. */
  update(state) {
    const prev = this.state;
    this.state = state;
    const view = state.view;
    if (view && view.trick && view.trick.length) this.lastTrick = view.trick;
    if (!view || noCardPlayed(view)) this.lastTrick = [];
    const hand = (view && view.hand) || [];
    for (const code of [...this.selected]) if (!hand.includes(code)) this.selected.delete(code);
    const played = (v) => (v ? v.counts.reduce((a, b) => a + b, 0) : -1);
    const turnChanged = !prev || !prev.view || !view || prev.view.to_move !== view.to_move || played(prev.view) !== played(view);
    if (turnChanged) {
      this.hintIndex = -1;
      this.pending = false;
    }
    if (view && view.result) this.groups = [];
    this.groups = this.groups.map((g) => g.filter((c) => hand.includes(c))).filter((g) => g.length);
    this.render();
    if (turnChanged) this.maybeAutoPass();
  }

  /** 自动不出: on your turn with nothing that beats the play (and passing allowed), pass at once. */
  maybeAutoPass() {
    const s = this.state;
    const view = s.view;
    if (this.replay || !autoPassOn() || !view || view.over || s.offline) return;
    if (view.to_move !== s.me || !view.can_pass || (view.legal_plays || []).length) return;
    this.autoPassed = (this.autoPassed || 0) + 1;
    this.root.dataset.autoPassed = String(this.autoPassed);
    this.pass();
  }

  bottomSeat() {
    const s = this.state;
    if (s.bottom !== undefined && s.bottom !== null) return s.bottom;
    return s.me ?? 0;
  }

  render() {
    const s = this.state;
    const view = s.view;
    const bottom = this.bottomSeat();
    this.nowMarks = new Set();
    this.msgLine.classList.toggle("hidden", this.replay);
    this.actionsBar.classList.toggle("hidden", this.replay || s.me === null || s.me === undefined || !view || view.over);
    this.keysHelp.classList.toggle("hidden", this.actionsBar.classList.contains("hidden"));
    for (const rel of [1, 2, 3]) {
      const pos = POSITIONS[rel];
      this.seatBoxes[pos].innerHTML = "";
      this.seatBoxes[pos].append(this.seatPanel(seatAt(bottom, rel), pos));
    }
    this.renderSlots(bottom);
    this.renderCenter();
    this.renderMeBar(bottom);
    this.seenMarks = this.nowMarks;
    this.nowMarks = new Set();
    this.renderHand(bottom);
    this.refreshButtons();
    this.tick();
  }

  seatPanel(seat, pos) {
    const s = this.state;
    const view = s.view;
    const p = playerAt(s, seat);
    const box = el("div", "seat");
    box.dataset.seat = String(seat);
    box.dataset.pos = pos;
    const movesNow = Boolean(view && view.to_move === seat && !view.over);
    if (movesNow) {
      box.classList.add("to-move");
      box.setAttribute("aria-current", "true");
    }
    box.setAttribute("role", "group");
    box.setAttribute("aria-label", tt(movesNow ? "seat_label_turn" : "seat_label", { name: seatName(s, seat), n: view ? view.counts[seat] : 0 }));
    const machine = p && (p.bot || p.bot_account);
    const avatar = el("div", `avatar${machine ? " bot" : ""}`, p ? (machine ? "AI" : [...(p.nickname || "?")][0].toUpperCase()) : "·");
    box.append(avatar);
    const meta = el("div", "meta");
    if (movesNow) meta.append(el("div", "turn-marker", tt("to_move_marker"))); // not by colour alone
    meta.append(el("div", "name", s.seats && !p ? `${t("seat")} ${seat + 1} · ${t("empty_seat")}` : seatName(s, seat)));
    if (p && !this.replay) meta.append(seatStats(p));
    if (view) {
      const count = el("div", "count");
      count.append(cardBack());
      const b = el("b", "", String(view.counts[seat]));
      b.dataset.role = "count";
      count.append(b);
      meta.append(count);
    }
    meta.append(this.badges(seat));
    box.append(meta);
    const open = this.openHands();
    if (open) box.append(this.openHand(open[seat]));
    return box;
  }

  /** In a replay, every seat's cards when they are known (a finished game's replay), else null. */
  openHands() {
    const s = this.state;
    if (!this.replay) return null;
    return s.hands || (s.view && s.view.hands) || null;
  }

  openHand(codes) {
    const row = el("div", "open-hand");
    for (const c of sortCodes(codes)) row.append(cardElement(c, { size: "mini" }));
    return row;
  }

  badges(seat) {
    const s = this.state;
    const view = s.view;
    const p = playerAt(s, seat);
    const st = p ? s.seats[seat] : null;
    const badges = el("div", "badges");
    if (view) {
      for (const m of view.marks[seat] || []) {
        const mark = el("span", "mark", m === "S3" ? "♠3" : "♠2");
        mark.dataset.mark = m;
        const key = `${seat}:${m}`;
        if (this.seenMarks && !this.seenMarks.has(key)) mark.classList.add("new");
        this.nowMarks.add(key);
        mark.title = m === "S3" ? "牛鬼3" : "牛鬼2";
        mark.setAttribute("aria-label", tt("mark_label", { card: cardLabel(m) }));
        badges.append(mark);
      }
      const marks = view.marks[seat] || [];
      if (marks.length === 2 && this.seenMarks && !(this.seenMarks.has(`${seat}:S3`) && this.seenMarks.has(`${seat}:S2`))) {
        this.doubleShown = this.doubleShown || new Set();
        const key = `${this.state.gameId ?? ""}:${seat}`;
        if (!this.doubleShown.has(key)) {
          this.doubleShown.add(key);
          queueMicrotask(() => burst(this.center, tt("double_effect"), "double"));
        }
      }
      const place = view.finish.indexOf(seat);
      if (place >= 0) {
        const chip = el("span", `chip place p${place}`, t(`place_${place}`));
        chip.dataset.place = String(place);
        badges.append(chip);
      } else if (view.over && view.result && view.result.outcome !== "escape") {
        badges.append(el("span", "chip place p3", t("place_3")));
      }
    }
    if (st && st.autoplay) {
      const chip = el("span", "chip autoplay", t("autoplay"));
      chip.dataset.chip = "autoplay";
      badges.append(chip);
    }
    if (st && s.between && st.ready && !p.bot) {
      const chip = el("span", "chip ready", t("ready"));
      chip.dataset.chip = "ready";
      badges.append(chip);
    }
    if (st && !p.bot && !st.online) {
      const chip = el("span", "chip offline", t("offline"));
      chip.dataset.chip = "offline";
      badges.append(chip);
    }
    if (s.totals) {
      const total = s.totals[seat];
      badges.append(el("span", "chip total", `${t("total")} ${total > 0 ? "+" : ""}${total}`));
    }
    return badges;
  }

  renderSlots(bottom) {
    const view = this.state.view;
    const trick = view && view.trick && view.trick.length ? view.trick : this.lastTrick;
    const faded = !(view && view.trick && view.trick.length);
    const cleared = faded && this.wasLive && trick && trick.length;
    this.wasLive = !faded;
    const flights = [];
    const currentSeat = view && view.current ? view.current.seat : null;
    for (let rel = 0; rel < 4; rel++) {
      const seat = seatAt(bottom, rel);
      const slot = this.slots[POSITIONS[rel]];
      slot.innerHTML = "";
      slot.removeAttribute("aria-label");
      slot.dataset.seat = String(seat);
      slot.classList.toggle("current", !faded && currentSeat === seat);
      slot.style.opacity = faded ? "0.45" : "1";
      let last = null;
      for (const entry of trick || []) if (entry.seat === seat) last = entry;
      if (!last) continue;
      if (last.pass && !faded && !this.replay && view.to_move === seat) continue; // its turn again: old news
      const key = JSON.stringify(last) + trick.indexOf(last);
      const fresh = Boolean(this.slotKeys && this.slotKeys[rel] !== key && !faded);
      slot.classList.toggle("fresh", fresh);
      this.slotKeys = this.slotKeys || {};
      this.slotKeys[rel] = key;
      const name = seatName(this.state, seat);
      if (last.pass) {
        slot.append(el("span", "pass-chip", t("passed")));
        slot.setAttribute("aria-label", tt("passed_label", { name }));
      } else if (last.play) {
        const row = el("div", "cards-row");
        for (const c of displayOrder(last.play)) row.append(cardElement(c, { size: "sm" }));
        slot.append(row);
        slot.setAttribute("aria-label", tt("played_label", { name, cards: last.play.map(cardLabel).join(" ") }));
        if (last.kind && last.play.length > 1) slot.append(el("div", "kind", t(`kind_${last.kind}`)));
        if (fresh) flights.push([row, rel, last]);
      }
    }
    // after layout: the fresh play flies in from its seat; a five-card play gets its burst
    for (const [row, rel, last] of flights) {
      const from = rel === 0 ? (this.state.me === bottom ? this.handWrap : this.meBar) : this.seatBoxes[POSITIONS[rel]];
      flyIn(row, from);
      if (last.play.length === 5 && last.kind) burst(this.center, tt("five_effect", { kind: t(`kind_${last.kind}`) }), `five p-${POSITIONS[rel]}`);
    }
    if (cleared) clearTrick(Object.values(this.slots).filter((slot) => slot.childElementCount));
  }

  renderCenter() {
    const s = this.state;
    const view = s.view;
    this.centerInfo.innerHTML = "";
    this.centerInfo.append(el("div", "order", "↺"));
    this.note.innerHTML = "";
    this.note.append(el("div", "", `↺ ${t("order")}`));
    if (s.flip && view && !noCardPlayed(view)) {
      const line = el("div", "", `${t("flip")} ${cardText(s.flip.card, getLang())} → ${seatName(s, s.flip.first_drawer)}`);
      line.dataset.role = "flip";
      line.dataset.seat = String(s.flip.first_drawer);
      this.note.append(line);
    } else if (view && !noCardPlayed(view) && view.first_drawer !== null && view.first_drawer !== undefined) {
      const line = el("div", "", t("first_drawer", { name: seatName(s, view.first_drawer) }));
      line.dataset.role = "first-drawer";
      line.dataset.seat = String(view.first_drawer);
      this.note.append(line);
    }
    if (s.flip && (!view || noCardPlayed(view))) {
      const box = el("div", "flip-box");
      box.dataset.role = "flip";
      box.dataset.seat = String(s.flip.first_drawer);
      box.dataset.value = String(s.flip.value);
      box.append(el("span", "", `${t("flip")}:`));
      box.append(cardElement(s.flip.card, { size: "sm", attr: "flip" }));
      box.append(el("span", "", t("flip_text", { card: cardText(s.flip.card, getLang()), n: s.flip.value ?? "", name: seatName(s, s.flip.first_drawer) })));
      this.centerInfo.append(box);
    } else if (view && noCardPlayed(view) && view.first_drawer !== null && view.first_drawer !== undefined) {
      const line = el("div", "order-text", t("first_drawer", { name: seatName(s, view.first_drawer) }));
      line.dataset.role = "first-drawer";
      line.dataset.seat = String(view.first_drawer);
      this.centerInfo.append(line);
    }
    if (s.centerExtra) this.centerInfo.append(s.centerExtra);
  }

  renderMeBar(bottom) {
    const s = this.state;
    const view = s.view;
    this.meBar.innerHTML = "";
    this.meBar.dataset.seat = String(bottom);
    const mine = s.me !== null && s.me !== undefined;
    this.meBar.classList.toggle("to-move", Boolean(view && view.to_move === bottom && !view.over));
    const p = playerAt(s, bottom);
    if (view && view.to_move === bottom && !view.over) this.meBar.append(el("span", "turn-marker", tt("to_move_marker")));
    const nameEl = el("span", "name", seatName(s, bottom) + (mine && !this.replay ? ` (${t("you")})` : ""));
    this.meBar.append(nameEl);
    if (view && (!mine || this.replay)) {
      const count = el("span", "chip", t("cards_left", { n: view.counts[bottom] }));
      this.meBar.append(count);
    }
    if (mine && !this.replay && view && view.side) {
      const side = sideChip(view, bottom);
      side.addEventListener("click", () => (this.msgLine.textContent = side.title)); // a phone has no hover
      this.meBar.append(side);
    }
    this.meBar.append(this.badges(bottom));
    if (p && p.bot && !mine) this.meBar.append(el("span", "chip", t("bot")));
    if (!this.replay && view && view.hand && view.hand.length > 1) {
      const sort = el("button", "tb-btn", localStorage.getItem("niugui.sort") === "suit" ? t("sort_rank") : t("sort_suit"));
      sort.dataset.action = "sort";
      sort.addEventListener("click", () => {
        localStorage.setItem("niugui.sort", localStorage.getItem("niugui.sort") === "suit" ? "rank" : "suit");
        this.render();
      });
      this.meBar.append(sort);
      this.meBar.append(this.groupButton());
    }
    if (!this.replay && mine) {
      const on = autoPassOn();
      const auto = el("button", `tb-btn toggle${on ? " on" : ""}`, on ? `✓ ${tt("autopass")}` : tt("autopass"));
      auto.dataset.action = "autopass";
      auto.setAttribute("aria-pressed", String(on));
      auto.addEventListener("click", () => {
        localStorage.setItem(AUTOPASS, on ? "0" : "1");
        this.render();
        this.maybeAutoPass();
      });
      this.meBar.append(auto);
    }
    this.countdownSlot = el("span", "countdown hidden");
    this.countdownSlot.dataset.role = "countdown";
    this.meBar.append(this.countdownSlot);
    this.msg = this.msgLine;
  }

  renderHand(bottom) {
    const s = this.state;
    const view = s.view;
    this.hand.innerHTML = "";
    let codes = [];
    if (this.openHands()) codes = this.openHands()[bottom];
    else if (view && view.hand && !this.replay) codes = view.hand;
    if (!codes.length) {
      const empty = el("div", "hand-empty", view && view.seat === null && !this.replay ? t("spectating") : "");
      this.hand.append(empty);
      return;
    }
    const bySuit = localStorage.getItem("niugui.sort") === "suit";
    const sorted = bySuit ? sortBySuit(codes) : sortCodes(codes);
    const grouped = this.replay ? [] : this.groups;
    const inGroup = new Map();
    grouped.forEach((g, n) => g.forEach((c) => inGroup.set(c, n)));
    const order = [...grouped.flatMap((g) => sorted.filter((c) => g.includes(c))), ...sorted.filter((c) => !inGroup.has(c))];
    let previous = null;
    for (const code of order) {
      const card = cardElement(code, { selectable: !this.replay });
      const group = inGroup.has(code) ? inGroup.get(code) : -1; // -1: the cards in no group
      if (group >= 0) {
        card.classList.add("grouped");
        card.dataset.group = String(group);
      }
      if (previous !== null && previous !== group) card.classList.add("group-start");
      previous = group;
      if (this.selected.has(code)) card.classList.add("selected");
      if (!this.replay) card.setAttribute("aria-pressed", String(this.selected.has(code)));
      this.hand.append(card);
    }
    this.fitHand();
  }

  /** Overlap the hand's cards more when they would not fit the width (14 cards, R9, with 理牌
   *  groups, on a 360 px phone): each card keeps at least MIN_STEP px to tap, the gaps between
   *  groups shrink last. Wider screens keep the style sheet's --step and --gap. */
  fitHand() {
    const hand = this.hand;
    hand.style.removeProperty("--step");
    hand.style.removeProperty("--gap");
    const cards = hand.querySelectorAll(".card");
    const wrap = getComputedStyle(this.handWrap);
    const room = this.handWrap.clientWidth - parseFloat(wrap.paddingLeft) - parseFloat(wrap.paddingRight);
    if (cards.length < 2 || !(room > 0)) return;
    const style = getComputedStyle(hand);
    const px = (name) => parseFloat(style.getPropertyValue(name)) || 0;
    const width = px("--cw");
    let step = px("--step");
    let gap = px("--gap");
    const gaps = hand.querySelectorAll(".card.group-start").length;
    const need = () => width + (cards.length - 1) * step + gaps * gap;
    if (need() <= room) return;
    step = Math.max(MIN_STEP, Math.floor((room - width - gaps * gap) / (cards.length - 1)));
    if (gaps && need() > room) gap = Math.max(2, Math.floor((room - width - (cards.length - 1) * step) / gaps));
    hand.style.setProperty("--step", `${step}px`);
    hand.style.setProperty("--gap", `${gap}px`);
  }

  /** 理牌: the selected cards become a group at the left; with nothing selected, undo the groups. */
  groupButton() {
    const grouping = this.selected.size > 0 || !this.groups.length;
    const b = el("button", "tb-btn", grouping ? tt("group") : tt("ungroup"));
    b.dataset.action = grouping ? "group" : "ungroup";
    b.title = grouping ? tt("group_label") : tt("ungroup_label");
    b.disabled = grouping && this.selected.size === 0;
    b.addEventListener("click", () => {
      if (this.selected.size) {
        const chosen = [...this.selected];
        this.groups = [...this.groups.map((g) => g.filter((c) => !this.selected.has(c))).filter((g) => g.length), chosen];
        this.selected.clear();
      } else this.groups = [];
      this.render();
    });
    return b;
  }

  /** A quick-chat bubble at a seat for `ms` (replacing the seat's previous one). */
  showBubble(seat, bubble, ms) {
    if (!this.state) return;
    const rel = (seat - this.bottomSeat() + 4) % 4;
    const anchor = this.bubbleAnchors[POSITIONS[rel]];
    anchor.replaceChildren(bubble);
    setTimeout(() => bubble.remove(), ms);
  }

  /** Keyboard: type a rank to pick the next card of it (keys.js). */
  pickRank(rank) {
    const view = this.state && this.state.view;
    if (this.replay || !view || !view.hand) return;
    this.setSelection([...pickRank(sortCodes(view.hand), this.selected, rank)]);
    this.hintIndex = -1;
  }

  dragOver(card) {
    const code = card.dataset.card;
    if (this.drag.seen.has(code)) return;
    this.drag.seen.add(code);
    if (this.drag.select) this.selected.add(code);
    else this.selected.delete(code);
    card.classList.toggle("selected", this.selected.has(code));
    card.setAttribute("aria-pressed", String(this.selected.has(code)));
    this.hintIndex = -1;
    this.refreshButtons();
    this.refreshGroupButton();
  }

  toggle(code, card) {
    if (this.selected.has(code)) this.selected.delete(code);
    else this.selected.add(code);
    card.classList.toggle("selected", this.selected.has(code));
    card.setAttribute("aria-pressed", String(this.selected.has(code)));
    this.hintIndex = -1;
    this.refreshButtons();
    this.refreshGroupButton();
  }

  setSelection(codes) {
    this.selected = new Set(codes);
    for (const card of this.hand.querySelectorAll(".card")) {
      card.classList.toggle("selected", this.selected.has(card.dataset.card));
      card.setAttribute("aria-pressed", String(this.selected.has(card.dataset.card)));
    }
    this.refreshButtons();
    this.refreshGroupButton();
  }

  refreshGroupButton() {
    const old = this.meBar.querySelector("[data-action=group], [data-action=ungroup]");
    if (old) old.replaceWith(this.groupButton());
  }

  refreshButtons() {
    const s = this.state;
    const view = s.view;
    if (this.replay || !view || s.me === null || s.me === undefined) return;
    const myTurn = view.to_move === s.me && !view.over && !s.offline;
    const verdict = judgeSelection(view, [...this.selected]);
    this.playBtn.disabled = !myTurn || !verdict.ok || this.pending;
    this.passBtn.disabled = !myTurn || !view.can_pass || this.pending;
    this.hintBtn.disabled = !myTurn || !(view.legal_plays || []).length || this.pending;
    this.hintBtn.dataset.plays = String((view.legal_plays || []).length); // how many the hint cycles through
    let text = "";
    let bad = false;
    if (this.errorText) {
      text = this.errorText;
      bad = true;
    } else if (view.over) {
      text = "";
    } else if (myTurn) {
      if (this.selected.size && !verdict.ok) {
        text = t(verdict.key, verdict.params || {});
        bad = true;
      } else if (!this.selected.size) {
        if (view.can_pass && !(view.legal_plays || []).length) text = t("nothing_beats");
        else text = view.can_pass ? t("your_turn") : t("must_lead");
      } else {
        text = t("your_turn");
      }
    } else if (view.to_move !== null && view.to_move !== undefined) {
      text = t("waiting_for", { name: seatName(s, view.to_move) });
    }
    if (this.msg) {
      this.msg.textContent = text;
      this.msg.classList.toggle("bad", bad);
      this.msg.dataset.rule = bad && verdict.rule ? verdict.rule : "";
    }
    this.playBtn.title = verdict.ok ? "" : t(verdict.key, verdict.params || {});
  }

  /** A message from the server's error (it names the rule); shown until the next change. */
  showError(text) {
    this.errorText = text;
    this.pending = false;
    this.refreshButtons();
    setTimeout(() => {
      if (this.errorText === text) {
        this.errorText = "";
        this.refreshButtons();
      }
    }, 4000);
  }

  hint() {
    const plays = (this.state.view && this.state.view.legal_plays) || [];
    if (!plays.length || this.hintBtn.disabled) return;
    this.hintIndex = (this.hintIndex + 1) % plays.length;
    const keep = this.hintIndex;
    this.setSelection(plays[keep]);
    this.hintIndex = keep;
  }

  play() {
    const codes = [...this.selected];
    if (this.playBtn.disabled || !judgeSelection(this.state.view, codes).ok) return;
    this.pending = true;
    this.errorText = "";
    this.refreshButtons();
    this.actions.onPlay && this.actions.onPlay(sortCodes(codes));
  }

  pass() {
    if (this.passBtn.disabled || !this.state.view.can_pass) return;
    this.pending = true;
    this.errorText = "";
    this.selected.clear();
    this.refreshButtons();
    this.actions.onPass && this.actions.onPass();
  }

  /** A panel covers the table (the rules card, the drawer): your turn's clock shows above it. */
  setPanelOpen(open) {
    this.panelOpen = open;
    this.tick();
  }

  /** The countdown of the seat to move, from the server's deadline. */
  tick() {
    const s = this.state;
    if (!s || !s.view) return;
    const view = s.view;
    for (const old of this.root.querySelectorAll(".seat .countdown")) old.remove();
    if (this.countdownSlot) this.countdownSlot.classList.add("hidden");
    this.turnClock.classList.add("hidden");
    if (!s.deadline || view.over || view.to_move === null || view.to_move === undefined) return;
    const left = Math.max(0, Math.ceil((s.deadline - Date.now()) / 1000));
    if (this.panelOpen && !this.replay && view.to_move === s.me) {
      const low = left <= 5;
      this.turnClock.classList.remove("hidden");
      this.turnClock.classList.toggle("low", low);
      this.turnClock.dataset.left = String(left);
      const text = t(low ? "turn_clock_low" : "turn_clock", { s: left });
      if (this.turnClock.textContent !== text) this.turnClock.textContent = text;
    }
    const bottom = this.bottomSeat();
    let target;
    if (view.to_move === bottom) target = this.countdownSlot;
    else {
      const box = this.root.querySelector(`.seat[data-seat="${view.to_move}"]`);
      if (!box) return;
      target = el("span", "countdown");
      target.dataset.role = "countdown";
      box.append(target);
    }
    target.classList.remove("hidden");
    target.classList.toggle("low", left <= 5);
    target.textContent = left <= 5 ? `!${left}` : String(left); // low time: not by colour alone
    target.setAttribute("aria-label", `${left}s`);
    if (view.to_move === s.me && left <= 5 && left > 0 && this.actions.onLowTime) this.actions.onLowTime(left);
  }
}
