// One table, live: follows the table's events and snapshots (docs/protocol.md §3–4), keeps the last
// seq for reconnecting, and drives the TableView and the result panel. It shows only what the
// server's view and table state say.

import { BUBBLE_MS, bubble, chatPanel, loadMutes, mutedSeat } from "./chat.js";
import { counterPanel, playedIn, unseen } from "./counter.js";
import { t } from "./i18n.js";
import { inviteFriendsButton } from "./friends.js";
import { api, errorText } from "./net.js";
import { resultPanel } from "./result.js";
import { eventButtons } from "./eventplay.js";
import { dissolveNews, loadSession, mayPropose, settlementPanel, shareCard, voteBox } from "./session.js";
import { isMuted, playSound, playSoundName, setMuted } from "./sound.js";
import { TableView, seatName } from "./table.js";
import { tt } from "./tablestrings.js";
import { el } from "./dom.js";

const QUICK_PLAY = "quick-play"; // the creator of quick-play tables (the server's hub.py)

/**
 * Whether a finished game moved ratings, as the server decides (commands.rated_game): a rated table
 * and at least two people among the game's players; e.g. one person with three bots is rated_alone.
 */
export function ratedWord(st, players) {
  if (!st.settings.rated) return "rated_off";
  const seats = players || st.seats.map((slot) => slot.player);
  return seats.filter((p) => p && !p.bot).length >= 2 ? "rated_yes" : "rated_alone";
}

export class TableScreen {
  /** handlers: {conn, account(), onLobby(), onReplay(gameId), toast(text), langButton()} */
  constructor(root, tableId, code, handlers) {
    this.root = root;
    this.tableId = tableId;
    this.code = code;
    this.h = handlers;
    this.seq = null;
    this.view = null;
    this.tstate = null;
    this.clockOffset = 0;
    this.reveals = {};
    this.published = {}; // game id → the commitment seen at its deal (checked against the reveal)
    this.dismissed = null;
    this.played = []; // every card played in public in this game (R12): the 记牌器 counts from these
    this.drawerOpen = null; // "counter" | "chat" | null
    this.lowTicks = new Set();
    root.innerHTML = "";
    root.className = "table-screen";
    root.dataset.table = tableId;
    this.bar = el("div", "topbar");
    this.body = el("div", "");
    this.body.style.cssText = "flex:1;display:flex;flex-direction:column;min-height:0;";
    root.append(this.bar, this.body);
    this.tableView = new TableView(this.body, {
      onPlay: (cards) => this.act("play", { cards }),
      onPass: () => this.act("pass", {}),
      onLowTime: (left) => this.lowTime(left),
    });
    this.chatLog = el("div", "sr-only");
    this.chatLog.dataset.role = "chat-log";
    this.chatLog.setAttribute("aria-live", "polite");
    root.append(this.chatLog);
    this.overlay = el("div", "overlay hidden");
    root.append(this.overlay);
    this.renderBar();
    // whom your account mutes, on every device (issue 33, finding 5); the drawer shows it once read
    loadMutes().then(() => this.renderDrawer());
    if (this.h.conn.online) this.subscribe();
  }

  destroy() {
    this.tableView.destroy();
    clearInterval(this.voteTimer);
  }

  /** (Re)subscribe: after a reconnect, ask only for what was missed since the last seq. */
  async subscribe() {
    const fields = { table: this.tableId };
    if (this.code) fields.code = this.code;
    if (this.seq !== null && this.view !== undefined && this.tstate) fields.last_seq = this.seq;
    try {
      await this.h.conn.request("watch", fields);
      this.synced = true; // the events we missed came before this ack
      this.render();
    } catch (error) {
      if (error.code !== "offline") this.h.toast(error.message);
    }
  }

  onWelcome() {
    this.subscribe();
  }

  /** The connection went down or came back: actions wait until the table is caught up again. */
  onStatus(status) {
    if (status !== "online" && this.synced) {
      this.synced = false;
      if (this.tstate) this.render();
    }
  }

  onMessage(msg) {
    if (msg.table !== this.tableId) {
      // Joined by the code alone: the server answers with the table's id; take it from there on.
      if (!this.code || !msg.state || msg.state.code !== this.code) return;
      this.tableId = msg.table;
      this.root.dataset.table = msg.table;
      history.replaceState(null, "", `#/table/${encodeURIComponent(msg.table)}?code=${encodeURIComponent(this.code)}`);
    }
    if (msg.type === "rematch") { // who asked for 再来一局 (rematch.py)
      this.rematch = msg;
      this.renderOverlay();
      return;
    }
    const now = Date.now() / 1000;
    if (msg.type === "snapshot") {
      this.seq = msg.seq;
      this.played = msg.view ? playedIn(msg.view.history) : [];
      this.view = msg.view;
      this.tstate = msg.state;
      this.notePublished(msg.state);
      this.noteNames(msg.state);
      if (typeof msg.time === "number") this.clockOffset = now - msg.time;
      this.render();
      return;
    }
    if (msg.type !== "event") return;
    if (this.seq !== null && msg.seq <= this.seq) return; // already seen
    if (this.seq !== null && msg.seq > this.seq + 1 && !msg.replay) {
      // a gap: ask for a fresh snapshot
      this.seq = null;
      this.subscribe();
      return;
    }
    this.seq = msg.seq;
    if (typeof msg.time === "number" && !msg.replay) this.clockOffset = now - msg.time;
    const before = this.view;
    if (msg.view || !msg.replay) this.view = msg.view;
    this.tstate = msg.state;
    this.notePublished(msg.state);
    this.noteNames(msg.state);
    const ev = msg.event;
    if (ev.kind === "deal") this.played = [];
    if (ev.kind === "play") this.played.push(...ev.play);
    if (!msg.replay) this.sounds(ev, before);
    if (ev.kind === "chat") {
      if (!msg.replay && ev.phrase) this.showChat(ev.seat, ev.phrase); // null: someone you block
      this.root.dataset.seq = String(this.seq);
      return; // a chat changes nothing at the table
    }
    if (ev.kind === "game_over") this.reveals[ev.game_id] = ev.reveal;
    const news = msg.replay ? null : dissolveNews(ev, msg.state, [0, 1, 2, 3].map((s) => seatName(msg.state, s)));
    if (news) this.h.toast(news);
    if (ev.kind === "deal") this.dismissed = null;
    if (!msg.replay || msg.view) this.render();
  }

  /** The creator's form to invite a bot account by its username (docs/protocol.md "Bot accounts");
   * made once, so what is typed survives the re-renders of the waiting box. */
  inviteForm() {
    if (this.invite) return this.invite;
    const form = (this.invite = el("form", "invite-bot"));
    form.dataset.role = "invite-bot";
    const name = el("input");
    name.name = "bot_username";
    name.maxLength = 32;
    name.placeholder = t("invite_bot_placeholder");
    const go = el("button", "btn small secondary", t("invite_bot"));
    go.type = "submit";
    go.dataset.action = "invite-bot";
    form.append(name, go);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const username = name.value.trim();
      if (!username) return;
      try {
        await this.h.conn.request("invite", { table: this.tableId, username, seat: null });
        name.value = "";
        this.h.toast(t("invited", { name: username }));
      } catch (error) {
        this.h.toast(error.code === "bot_offline" ? t("bot_offline", { name: username }) : error.message);
      }
    });
    return form;
  }

  async act(type, fields) {
    try {
      await this.h.conn.request(type, { table: this.tableId, ...fields });
    } catch (error) {
      const text = type === "chat" && error.code === "rate_limited" ? tt("chat_too_fast") : error.message || String(error);
      this.tableView.showError(text);
    }
  }

  /** The sound of an event as it happens (never for replayed ones). */
  sounds(ev, before) {
    const view = this.view;
    const me = this.tstate ? this.tstate.you : null;
    if (ev.kind === "play") playSound(view && view.counts[ev.seat] === 0 ? "out" : playSoundName(ev.play));
    else if (ev.kind === "pass") playSound("pass");
    else if (ev.kind === "game_over" && me !== null && me !== undefined) {
      const score = ev.result.scores[me];
      if (score > 0) playSound("win");
      else if (score < 0) playSound("lose");
    }
    const myTurnNow = me !== null && me !== undefined && view && !view.over && view.to_move === me;
    if (myTurnNow && (!before || before.over || before.to_move !== me)) playSound("turn");
  }

  /** The last five seconds of your turn: one tick a second. */
  lowTime(left) {
    const key = `${this.seq}:${left}`;
    if (this.lowTicks.has(key)) return;
    this.lowTicks.add(key);
    playSound("tick");
  }

  showChat(seat, phrase) {
    const st = this.tstate;
    if (!st || mutedSeat(st, seat)) return;
    const name = seatName(st, seat);
    this.tableView.showBubble(seat, bubble(seat, phrase, name), BUBBLE_MS);
    const line = el("div", "", tt("chat_said", { name, text: tt(`phrase_${phrase}`) }));
    line.dataset.seat = String(seat);
    line.dataset.phrase = phrase;
    this.chatLog.append(line);
    while (this.chatLog.childElementCount > 8) this.chatLog.firstChild.remove();
  }

  counterOn() {
    const st = this.tstate;
    return Boolean(st && st.settings && st.settings.counter !== false && this.view);
  }

  /** The drawer under the felt: the 记牌器 or the quick-chat panel, when opened. */
  renderDrawer() {
    const drawer = this.tableView.drawer;
    drawer.innerHTML = "";
    const st = this.tstate;
    if (this.drawerOpen === "counter" && this.counterOn()) {
      drawer.append(counterPanel(unseen(this.played, (this.view && this.view.hand) || [])));
    } else if (this.drawerOpen === "chat" && st) {
      const me = st.you;
      const others = [0, 1, 2, 3]
        .filter((s) => s !== me && st.seats[s].player && !st.seats[s].player.bot)
        .map((s) => ({ seat: s, name: seatName(st, s), id: st.seats[s].player.id }));
      drawer.append(
        chatPanel({
          canSend: me !== null && me !== undefined && st.status !== "finished",
          onSend: (phrase) => this.act("chat", { phrase }),
          others,
          onMuteChange: () => this.renderDrawer(),
        }),
      );
    }
    drawer.classList.toggle("hidden", !drawer.childElementCount);
  }

  toggleDrawer(what) {
    this.drawerOpen = this.drawerOpen === what ? null : what;
    this.renderBar();
    this.renderDrawer();
    this.tableView.setPanelOpen(Boolean(this.helpOpen || this.drawerOpen));
  }

  renderBar() {
    const st = this.tstate;
    this.bar.innerHTML = "";
    const back = el("button", "tb-btn", `← ${t("lobby")}`);
    back.dataset.action = "leave";
    back.addEventListener("click", () => this.leave());
    this.bar.append(back);
    let title = st ? st.name || `${t("table")} ${st.id}` : `${t("table")} ${this.tableId}`;
    if (st && st.game_no) title += ` · ${t("game_no", { n: st.game_no })}`;
    if (st && st.code) title += ` · ${t("copy_code", { code: st.code })}`;
    const grow = el("div", "grow", title);
    grow.dataset.role = "table-title";
    this.bar.append(grow);
    const me = st ? st.you : null;
    if (st && me !== null && me !== undefined && st.status === "playing") {
      const mine = st.seats[me];
      const auto = el("button", "tb-btn", mine.autoplay ? t("autoplay_off") : t("autoplay"));
      auto.dataset.action = "autoplay";
      auto.addEventListener("click", () => this.act("autoplay", { on: !mine.autoplay }));
      this.bar.append(auto);
    }
    if (st && mayPropose(st)) {
      const end = el("button", "tb-btn", t("dissolve"));
      end.dataset.action = "dissolve";
      end.addEventListener("click", () => this.act("dissolve", { agree: true }));
      this.bar.append(end);
    }
    const muted = isMuted();
    const sound = el("button", "tb-btn", muted ? tt("sound_off") : tt("sound_on"));
    sound.dataset.action = "sound";
    sound.setAttribute("aria-pressed", String(!muted));
    sound.setAttribute("aria-label", muted ? tt("sound_label_off") : tt("sound_label_on"));
    sound.addEventListener("click", () => {
      setMuted(!isMuted());
      this.renderBar();
    });
    this.bar.append(sound);
    if (st) {
      const chat = el("button", `tb-btn${this.drawerOpen === "chat" ? " on" : ""}`, tt("chat"));
      chat.dataset.action = "chat";
      chat.setAttribute("aria-label", tt("chat_label"));
      chat.setAttribute("aria-expanded", String(this.drawerOpen === "chat"));
      chat.addEventListener("click", () => this.toggleDrawer("chat"));
      this.bar.append(chat);
    }
    if (this.counterOn()) {
      const counter = el("button", `tb-btn${this.drawerOpen === "counter" ? " on" : ""}`, tt("counter"));
      counter.dataset.action = "counter";
      counter.setAttribute("aria-label", tt("counter_label"));
      counter.setAttribute("aria-expanded", String(this.drawerOpen === "counter"));
      counter.addEventListener("click", () => this.toggleDrawer("counter"));
      this.bar.append(counter);
    }
    const help = el("button", "tb-btn", "?");
    help.dataset.action = "help";
    help.title = t("help");
    help.addEventListener("click", () => this.showHelp());
    this.bar.append(help, this.h.langButton());
  }

  showHelp() {
    const box = el("div", "result");
    box.dataset.role = "help";
    box.append(el("h2", "", t("help")));
    const list = el("ul", "help");
    for (const line of t("help_lines")) list.append(el("li", "", line));
    const close = el("button", "btn secondary", "✕");
    close.dataset.action = "close-help";
    close.addEventListener("click", () => {
      this.helpOpen = false;
      this.tableView.setPanelOpen(Boolean(this.drawerOpen));
      this.renderOverlay();
    });
    const buttons = el("div", "buttons");
    const rules = el("a", "btn secondary", t("rules")); // the whole rules page (rulespage.js)
    rules.href = "#/rules";
    rules.dataset.action = "rules";
    const guided = el("a", "btn secondary", t("tut_title")); // 新手教学, always one tap from here
    guided.href = "#/tutorial";
    guided.dataset.action = "tutorial";
    buttons.append(guided, rules, close);
    box.append(list, buttons);
    this.overlay.innerHTML = "";
    this.overlay.append(box);
    this.overlay.classList.remove("hidden");
    this.helpOpen = true;
    this.tableView.setPanelOpen(true);
  }

  /** The page's own question before an escape (R35), not the browser's bare confirm box: resolves
   *  true to leave, false to stay. */
  confirmLeave() {
    return new Promise((resolve) => {
      const box = el("div", "result");
      box.dataset.role = "leave-confirm";
      box.append(el("h2", "", t("leave_title")), el("div", "sub", t("escape_confirm")));
      const answer = (leave) => {
        this.overlay.classList.add("hidden");
        this.overlay.innerHTML = "";
        this.renderOverlay();
        resolve(leave);
      };
      const buttons = el("div", "buttons");
      const stay = el("button", "btn", t("stay"));
      stay.dataset.action = "stay";
      stay.addEventListener("click", () => answer(false));
      const go = el("button", "btn secondary", t("leave_escape"));
      go.dataset.action = "confirm-leave";
      go.addEventListener("click", () => answer(true));
      buttons.append(stay, go);
      box.append(buttons);
      this.overlay.innerHTML = "";
      this.overlay.append(box);
      this.overlay.classList.remove("hidden");
      stay.focus();
    });
  }

  async leave() {
    const st = this.tstate;
    const me = st ? st.you : null;
    const holding = this.view && !this.view.over && me !== null && me !== undefined && this.view.counts[me] > 0;
    if (holding && st.status === "playing" && !(await this.confirmLeave())) return;
    try {
      await this.h.conn.request("leave", { table: this.tableId });
    } catch {
      /* leaving anyway */
    }
    this.h.onLobby();
  }

  /** Who sat where in the game in progress: the result still names them after they stood up (an
   * escape; the bots of a table whose humans all left). */
  noteNames(st) {
    if (!st || st.status !== "playing") return;
    if (this.namesGame !== st.game_id) {
      this.namesGame = st.game_id;
      this.gameNames = [null, null, null, null];
      this.gamePlayers = [null, null, null, null];
    }
    st.seats.forEach((slot, n) => {
      if (slot.player) {
        this.gameNames[n] = seatName(st, n);
        this.gamePlayers[n] = slot.player;
      }
    });
  }

  waitingBox() {
    const st = this.tstate;
    const box = el("div", "waiting-box");
    box.dataset.role = "waiting";
    box.style.pointerEvents = "auto";
    if (!st) {
      box.append(el("div", "", t("connecting")));
      return box;
    }
    const account = this.h.account() || {};
    const empty = st.seats.filter((s) => !s.player).length;
    if (st.status === "finished") box.append(el("div", "", t("table_over")));
    else if (empty) box.append(el("div", "", t("waiting_players")));
    if (st.code) {
      const code = el("div", "", t("copy_code", { code: st.code }));
      code.dataset.role = "join-code";
      code.dataset.join = st.code;
      box.append(code);
      const link = `${location.origin}${location.pathname}#/table/${encodeURIComponent(st.id)}?code=${encodeURIComponent(st.code)}`;
      const copy = el("button", "btn small secondary", t("copy_link"));
      copy.dataset.action = "copy-link";
      copy.addEventListener("click", async () => {
        try {
          await navigator.clipboard.writeText(link);
          this.h.toast(t("copied"));
        } catch {
          window.prompt(t("copy_link"), link);
        }
      });
      box.append(copy);
    }
    if (empty && st.creator === account.id && st.status !== "playing" && st.status !== "finished") {
      const fill = el("button", "btn", t("fill_bots"));
      fill.dataset.action = "fill-bots";
      fill.addEventListener("click", () => this.act("fill_bots", {}));
      box.append(fill, this.inviteForm());
    }
    const seated = st.you !== null && st.you !== undefined;
    if (empty && (seated || st.creator === account.id) && st.status !== "playing" && st.status !== "finished") {
      box.append(this.friendsInvite || (this.friendsInvite = inviteFriendsButton(this.h.conn, this.tableId, this.h.toast)));
    }
    if ((st.you === null || st.you === undefined) && empty && st.status !== "finished") {
      const sit = el("button", "btn secondary", t("take_seat"));
      sit.dataset.action = "sit";
      sit.addEventListener("click", () => this.act("sit", { seat: null, code: this.code || st.code || null }));
      box.append(sit);
    }
    return box;
  }

  render() {
    this.renderBar();
    const st = this.tstate;
    const view = this.view;
    const data = this.root.dataset;
    data.seq = String(this.seq ?? "");
    data.you = st && st.you !== null && st.you !== undefined ? String(st.you) : "";
    data.over = String(Boolean(view && view.over));
    data.gameId = st && st.game_id !== null && st.game_id !== undefined ? String(st.game_id) : "";
    data.status = st ? st.status : "";
    data.synced = String(Boolean(this.synced));
    const deadline = st && st.deadline ? (st.deadline + this.clockOffset) * 1000 : null;
    const center = !view || (st && st.status !== "playing" && !view.over) ? this.waitingBox() : null;
    this.tableView.update({
      view,
      me: st ? st.you : null,
      seats: st ? st.seats : null,
      totals: st ? st.totals : null,
      deadline,
      flip: st ? st.flip : null,
      centerExtra: center,
      offline: !this.synced,
      between: Boolean(st && st.status === "between"),
      gameId: st ? st.game_id : null,
    });
    this.renderDrawer();
    this.renderVote();
    this.renderOverlay();
  }

  /** The dissolve vote in progress, counting down each second while it runs (session.js). */
  renderVote() {
    const st = this.tstate;
    if (this.voteEl) this.voteEl.remove();
    this.voteEl = null;
    if (!st || !st.dissolve) {
      clearInterval(this.voteTimer);
      this.voteTimer = null;
      return;
    }
    const names = [0, 1, 2, 3].map((s) => seatName(st, s));
    const now = Date.now() / 1000 - this.clockOffset;
    this.voteEl = voteBox({ st, names, now, onAnswer: (agree) => this.act("dissolve", { agree }) });
    this.root.append(this.voteEl);
    if (!this.voteTimer) this.voteTimer = setInterval(() => this.renderVote(), 1000);
  }

  /** At the session's end (the table finished after its N > 1 games, or dissolved): its settlement,
   *  read once from the server. A one-game table, or one its people left, shows the game's result. */
  settlement() {
    const st = this.tstate;
    if (!st || st.status !== "finished" || this.settlementDismissed) return null;
    if (this.sessionData === undefined) {
      this.sessionData = null;
      loadSession(this.tableId, this.code || st.code).then((data) => {
        const settled = data && (data.ended_by === "dissolved" || (data.ended_by === "games" && data.games > 1));
        this.sessionData = settled && data.games_played ? data : false;
        this.renderOverlay();
      });
    }
    if (!this.sessionData) return null;
    const account = this.h.account() || {};
    const me = st.you;
    const again = me !== null && me !== undefined && st.creator === QUICK_PLAY ? this.nextQuickPlay(me) : [];
    const buttons = [
      ...again,
      { label: t("session_share"), action: "share-card", primary: !again.length, onClick: () => this.share() },
      { label: t("session_last_game"), action: "last-game", onClick: () => {
        this.settlementDismissed = true;
        this.renderOverlay();
      } },
      { label: t("lobby"), action: "to-lobby", onClick: () => this.leave() },
    ];
    return settlementPanel({ data: this.sessionData, accountId: account.id, buttons });
  }

  async share() {
    try {
      const how = await shareCard(this.tableId, this.code || (this.tstate && this.tstate.code));
      if (how === "downloaded") this.h.toast(t("session_card_saved"));
    } catch (error) {
      this.h.toast(error.message);
    }
  }

  /** Keep the commitment of a game in play as first seen (the deal's, or the snapshot's on joining). */
  notePublished(st) {
    if (st && st.status === "playing" && st.commitment && st.game_id != null && !(st.game_id in this.published)) {
      this.published[st.game_id] = st.commitment;
    }
  }

  async renderOverlay() {
    if (this.helpOpen) return;
    const settled = this.settlement();
    if (settled) {
      this.overlay.innerHTML = "";
      this.overlay.append(settled);
      this.overlay.classList.remove("hidden");
      return;
    }
    const st = this.tstate;
    const view = this.view;
    const over = Boolean(view && view.over && view.result && st && st.status !== "playing");
    if (!over || this.dismissed === st.game_id) {
      this.overlay.classList.add("hidden");
      this.overlay.innerHTML = "";
        if (over) this.tableView.update({ ...this.tableView.state, centerExtra: this.nextBox() });
      return;
    }
    const gameId = st.game_id;
    let proof = this.reveals[gameId];
    if (!proof && gameId !== null && gameId !== undefined && !this.fetching) {
      this.fetching = true;
      try {
        const record = await api("GET", `/api/games/${gameId}/record`);
        const meta = record.meta || {};
        const fair = meta.fairness || meta;
        this.reveals[gameId] = { commitment: fair.commitment, salt: fair.salt, statement: fair.statement, deck: record.deck };
      } catch {
        this.reveals[gameId] = null;
      } finally {
        this.fetching = false;
      }
      if (this.tstate && this.tstate.game_id === gameId) this.renderOverlay();
      return;
    }
    const played = this.namesGame === gameId ? this.gameNames : [];
    const names = [0, 1, 2, 3].map((s) => (st.seats[s].player ? null : played[s]) || seatName(st, s));
    const me = st.you;
    const buttons = [];
    const mineReady = me !== null && me !== undefined && st.seats[me].ready;
    if (me !== null && me !== undefined && st.status === "between") {
      buttons.push({
        label: mineReady ? t("ready_waiting") : t("next_game"),
        action: "next-game",
        primary: true,
        disabled: mineReady,
        onClick: () => this.act("ready", {}),
      });
    }
    const account = this.h.account() || {};
    if (st.seats.some((x) => !x.player) && st.creator === account.id && st.status === "between") {
      buttons.push({ label: t("fill_bots"), action: "fill-bots", onClick: () => this.act("fill_bots", {}) });
    }
    if (me !== null && me !== undefined && st.status === "finished" && st.creator === QUICK_PLAY) {
      buttons.push(...this.nextQuickPlay(me));
    }
    buttons.push(...eventButtons(st, this.tableId, this.h)); // 下一副 · 成绩榜 at an event's table (issue 30)
    buttons.push({ label: t("open_replay"), action: "open-replay", onClick: () => this.h.onReplay(gameId, st.game_no) });
    buttons.push({ label: "✕", action: "close-result", onClick: () => {
      this.dismissed = gameId;
      this.renderOverlay();
    } });
    this.overlay.innerHTML = "";
    const ready = st.status === "between" ? st.seats.map((x) => x.ready) : null;
    const published = this.published[gameId];
    const rated = ratedWord(st, this.namesGame === gameId ? this.gamePlayers : null);
    const games = st.settings && st.settings.games;
    const progress = games > 1 && st.game_no ? { n: st.game_no, m: games } : null;
    this.overlay.append(resultPanel({ view, names, totals: st.totals, proof: proof && published ? { ...proof, published } : proof, buttons, ready, rated, progress }));
    this.overlay.classList.remove("hidden");
  }

  /** After a quick-play table's last game: 再来一局 (the same people, once all ask: rematch.py) and
   *  继续匹配 (quick play again, just you: the lobby shows the queue). */
  nextQuickPlay(me) {
    const asked = this.rematch ? this.rematch.asked : [];
    const people = this.rematch ? this.rematch.people.length : 0;
    const mine = asked.includes(me);
    const again = {
      label: this.rematch ? t("rematch_waiting", { n: asked.length, m: people }) : t("rematch"),
      action: "rematch",
      primary: true,
      disabled: mine,
      onClick: async () => {
        try {
          await this.h.conn.request("rematch", { table: this.tableId });
        } catch (error) {
          this.h.toast(errorText(error));
        }
      },
    };
    const onward = {
      label: t("keep_matching"),
      action: "keep-matching",
      onClick: async () => {
        try {
          await this.h.conn.request("quick_play", {});
          this.h.onLobby();
        } catch (error) {
          this.h.toast(errorText(error));
        }
      },
    };
    return [again, onward];
  }

  nextBox() {
    const st = this.tstate;
    const box = this.waitingBox();
    const me = st.you;
    if (me !== null && me !== undefined && st.status === "between") {
      const ready = st.seats[me].ready;
      const b = el("button", "btn", ready ? t("ready_waiting") : t("next_game"));
      b.dataset.action = "next-game";
      b.disabled = ready;
      b.addEventListener("click", () => this.act("ready", {}));
      box.append(b);
    }
    const show = el("button", "btn secondary", t("result"));
    show.addEventListener("click", () => {
      this.dismissed = null;
      this.renderOverlay();
    });
    box.append(show);
    return box;
  }
}
