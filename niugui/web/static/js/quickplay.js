// 快速开始 (quick play): the lobby's panel — preferences and the button — and the waiting view with
// how many wait, for how long, leave, and fill with bots (docs/protocol.md "Quick play").

import { button, el } from "./dom.js";
import { errorText, w } from "./words.js";

let last = null; // the last `queue` message (a panel drawn again shows the same standing)
let shown = null; // the panel on screen
let received = 0; // when `last` came (Date.now())

/** Every `queue` message from the server: seated → open the table; otherwise the panel redraws. */
export function onQueueMessage(msg, openTable) {
  last = msg.status === "waiting" ? msg : null;
  received = Date.now();
  if (msg.status === "seated" && msg.table) {
    openTable(msg.table, null);
    return;
  }
  if (shown) shown.draw();
}

/** The connection dropped: the server took us out of the queue. */
export function forgetQueue() {
  last = null;
  if (shown) shown.draw();
}

function choice(name, label, options) {
  const row = el("label", "row qp-pref");
  row.append(el("span", "", label));
  const select = el("select");
  select.name = name;
  for (const [value, text] of options) {
    const o = el("option", "", text);
    o.value = value;
    select.append(o);
  }
  row.append(select);
  return [row, select];
}

export class QuickPlayPanel {
  /** conn: the page's Connection; links: {onLeaderboard(), onProfile()} */
  constructor(conn, links) {
    this.conn = conn;
    this.links = links;
    this.root = el("div", "panel quick-play");
    this.root.dataset.role = "quick-play";
    this.timer = setInterval(() => this.tick(), 500);
    shown = this;
    this.draw();
  }

  destroy() {
    clearInterval(this.timer);
    if (shown === this) shown = null;
  }

  draw() {
    this.root.innerHTML = "";
    this.error = el("div", "error-text");
    if (last) this.drawWaiting();
    else this.drawIdle();
    const more = el("div", "row qp-links");
    more.append(
      button("btn small secondary", w("leaderboard"), "leaderboard", () => this.links.onLeaderboard()),
      button("btn small secondary", w("my_profile"), "my-profile", () => this.links.onProfile()),
    );
    this.root.append(this.error, more);
  }

  drawIdle() {
    const [timerRow, timer] = choice("qp_turn", w("turn_timer"), [
      ["", w("any")],
      ...[10, 20, 30, 60].map((n) => [String(n), w("seconds", { n })]),
    ]);
    const [gamesRow, games] = choice("qp_games", w("games"), [["", w("any")], ["1", "1"], ["4", "4"]]);
    // issue 33, finding 9: only those who agreed are taken into someone else's game with bots
    const botsRow = el("label", "row qp-pref");
    const botsOk = el("input");
    botsOk.type = "checkbox";
    botsOk.name = "qp_bots";
    botsOk.checked = localStorage.getItem("qp_bots") === "1";
    botsOk.addEventListener("change", () => localStorage.setItem("qp_bots", botsOk.checked ? "1" : "0"));
    botsRow.append(botsOk, el("span", "", w("qp_bots_ok")));
    const go = button("btn quick-play-btn", w("quick_play"), "quick-play", async () => {
      go.disabled = true;
      const prefs = {
        turn_seconds: timer.value ? Number(timer.value) : null,
        games: games.value ? Number(games.value) : null,
        bots: botsOk.checked,
      };
      try {
        await this.conn.request("quick_play", prefs);
      } catch (error) {
        this.error.textContent = errorText(error);
        go.disabled = false;
      }
    });
    this.root.append(go, el("div", "muted", w("quick_play_hint")), timerRow, gamesRow, botsRow);
  }

  drawWaiting() {
    const box = el("div", "qp-waiting");
    box.dataset.role = "queue";
    box.append(el("h2", "", w("waiting_title")));
    this.count = el("div", "qp-count", w("waiting_count", { n: last.waiting }));
    this.count.dataset.role = "queue-count";
    this.waited = el("div", "muted");
    this.waited.dataset.role = "queue-waited";
    box.append(this.count, this.waited);
    if (last.reason === "escapes") {
      const why = el("div", "qp-reason", w("delay_reason", { n: last.escapes, m: Math.round(last.delay) }));
      why.dataset.role = "queue-reason";
      box.append(why);
    }
    this.bots = button("btn", w("fill_bots"), "queue-bots", async () => {
      this.bots.disabled = true;
      try {
        await this.conn.request("queue_bots");
      } catch (error) {
        this.error.textContent = errorText(error);
        this.bots.disabled = false;
      }
    });
    const leave = button("btn secondary", w("leave_queue"), "leave-queue", async () => {
      try {
        await this.conn.request("leave_queue");
      } catch (error) {
        this.error.textContent = errorText(error);
      }
      last = null;
      this.draw();
    });
    const row = el("div", "row qp-actions");
    row.append(this.bots, leave);
    const note = el("div", "muted", w("fill_bots_note")); // said before, not only after (issue 28)
    note.dataset.role = "bots-unrated";
    box.append(row, note);
    this.root.append(box);
    this.tick();
  }

  /** The clock of the waiting view, counted here from the last message (the server sends changes only). */
  tick() {
    if (!last || !this.waited) return;
    const since = (Date.now() - received) / 1000;
    this.waited.textContent = w("waited", { s: Math.floor(last.waited + since) });
    const left = last.bots_in === null ? null : Math.max(0, Math.ceil(last.bots_in - since));
    const ready = left === 0;
    this.bots.disabled = !ready;
    this.bots.title = ready ? "" : w("bots_in", { s: left });
    this.bots.textContent = ready ? w("fill_bots") : `${w("fill_bots")} (${left}s)`;
  }
}
