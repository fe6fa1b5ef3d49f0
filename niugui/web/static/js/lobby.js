// The lobby: open tables; create a table; join by code; quick play (the sign-in panel: signin.js).

import { getLang, t } from "./i18n.js";
import { tt } from "./tablestrings.js";
import { api, session } from "./net.js";
import { el } from "./dom.js";
import { QuickPlayPanel } from "./quickplay.js";
import { tutorialOffer } from "./tutorialoffer.js";
import { w } from "./words.js";
import { field, input } from "./signin.js";
import { serverConfig } from "./serverconfig.js";

/**
 * What the "join by code" box holds: the join code (sent as both table and code: the server finds
 * the table by its code), a shared link (…#/table/ID?code=CODE), or "ID/CODE".
 */
export function parseJoin(text) {
  const value = text.trim();
  const link = value.match(/#\/table\/([^?/\s]+)(?:\?code=([^&\s]+))?/);
  if (link) return { table: decodeURIComponent(link[1]), joinCode: link[2] ? decodeURIComponent(link[2]) : null };
  const pair = value.match(/^([A-Za-z0-9_-]+)\s*[/:]\s*([A-Za-z0-9_-]+)$/);
  if (pair) return { table: pair[1], joinCode: pair[2] };
  return { table: value, joinCode: value || null };
}

let botName = null;
let playerName = null;

/** Tables you can sit at first (a free seat, not finished), then the others; fuller tables first. */
export function lobbyOrder(tables) {
  const free = (table) => table.seats.filter((p) => !p).length;
  const joinable = (table) => (free(table) > 0 ? 0 : 1);
  return [...tables].sort((a, b) => joinable(a) - joinable(b) || free(a) - free(b));
}

/** The lobby for a signed-in player. handlers: {conn, toast, onOpenTable(id, code), onHistory(), onRules()} */
export class LobbyScreen {
  constructor(root, handlers) {
    this.root = root;
    this.h = handlers;
    this.timer = setInterval(() => this.refresh(), 4000);
    this.render();
    this.refresh();
  }

  destroy() {
    clearInterval(this.timer);
    if (this.quick) this.quick.destroy();
    if (this.daily) this.daily.destroy();
    this.gone = true;
  }

  /** The 每日复式 card (dailycard.js, loaded after the lobby shows) under quick play (issue 30). */
  dailyCard(after) {
    if (this.daily) this.daily.destroy();
    this.daily = null;
    Promise.all([import("./dailycard.js"), import("./eventlist.js")]).then(([{ DailyCard }, { eventsSection }]) => {
      if (this.gone || !after.isConnected) return;
      this.daily = new DailyCard({ conn: this.h.conn, toast: this.h.toast, onOpenTable: this.h.onOpenTable });
      after.after(this.daily.root, eventsSection()); // then the other events one may see (eventlist.js)
    });
  }

  render() {
    const account = session.account || {};
    this.seatsKey = this.listKey = null; // drawn anew below, then by the next refresh
    this.root.innerHTML = "";
    this.root.className = "page";
    const who = el("div", "panel");
    const h2 = el("h2", "", t("hello", { name: account.nickname || "" }));
    h2.dataset.role = "hello";
    h2.append(el("span", "spacer"));
    const hist = el("button", "btn small secondary", t("history"));
    hist.dataset.action = "history";
    hist.addEventListener("click", () => this.h.onHistory());
    const rules = el("button", "btn small secondary", t("rules"));
    rules.dataset.action = "rules";
    rules.addEventListener("click", () => this.h.onRules());
    const clubs = el("button", "btn small secondary", t("clubs")); // 俱乐部 (issue 29)
    clubs.dataset.action = "clubs";
    clubs.addEventListener("click", () => this.h.onClubs());
    const friends = el("button", "btn small secondary", t("friends"));
    friends.dataset.action = "friends";
    friends.addEventListener("click", () => this.h.onFriends());
    h2.append(clubs, hist, friends, rules);
    who.append(h2);
    if (!account.username) who.append(this.registerBox());
    if (this.quick) this.quick.destroy();
    this.quick = new QuickPlayPanel(this.h.conn, { onLeaderboard: this.h.onLeaderboard, onProfile: this.h.onProfile });
    this.root.append(this.quick.root, who);
    this.dailyCard(this.quick.root);
    const offer = tutorialOffer(() => (location.hash = "#/tutorial")); // 新手教学, offered once
    if (offer) this.root.prepend(offer);

    const tablesPanel = el("div", "panel");
    const th = el("h2", "", t("open_tables"));
    th.append(el("span", "spacer"));
    const refresh = el("button", "btn small secondary", t("refresh"));
    refresh.dataset.action = "refresh";
    refresh.addEventListener("click", () => this.refresh());
    th.append(refresh);
    this.list = el("ul", "table-list");
    this.list.dataset.role = "tables";
    tablesPanel.append(th, this.list);

    const create = el("div", "panel");
    create.append(el("h2", "", t("create_table")));
    const form = el("form");
    form.dataset.role = "create-table";
    const name = input("text", "name");
    name.maxLength = 40;
    name.value = `${account.nickname || ""}${getLang() === "zh" ? "的牌桌" : "'s table"}`;
    const timer = input("number", "turn_seconds");
    const limits = serverConfig.turn_seconds; // the server's own bounds (GET /api/config)
    timer.min = String(limits.min);
    timer.max = String(limits.max);
    timer.step = "any";
    timer.value = String(limits.default);
    const bots = el("select");
    bots.name = "bot_level";
    for (const { name: level } of serverConfig.bot_levels) {
      const o = el("option", "", t(`bot_${level}`));
      o.value = level;
      o.selected = level === serverConfig.default_bot_level;
      bots.append(o);
    }
    const games = el("select");
    games.name = "games";
    for (const g of ["", "1", "4", "8", "16"]) {
      const o = el("option", "", g ? t("n_games", { n: g }) : t("endless"));
      o.value = g;
      games.append(o);
    }
    const priv = input("checkbox", "private");
    const rated = input("checkbox", "rated");
    const counter = input("checkbox", "counter"); // 记牌器 at this table (issue 10)
    counter.checked = true;
    const err = el("div", "error-text");
    const submit = el("button", "btn", t("create"));
    submit.type = "submit";
    submit.dataset.action = "create-table";
    form.append(
      field(t("table"), name),
      field(t("turn_timer"), timer),
      field(t("bot_level"), bots),
      field(t("games"), games),
      field(t("private"), priv),
      field(w("rated"), rated),
      field(tt("counter_setting"), counter),
      submit,
      err,
    );
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      err.textContent = "";
      const settings = {
        name: name.value.trim(),
        private: priv.checked,
        turn_seconds: Number(timer.value) || limits.default,
        bot_level: bots.value,
        games: games.value ? Number(games.value) : null,
        rated: rated.checked,
        counter: counter.checked,
      };
      try {
        const ack = await this.h.conn.request("create_table", { settings });
        const table = ack.data.table;
        await this.h.conn.request("sit", { table: table.id, seat: null, code: table.code || null });
        this.h.onOpenTable(table.id, table.code || null);
      } catch (error) {
        err.textContent = error.message;
      }
    });
    create.append(form);

    const join = el("div", "panel");
    join.append(el("h2", "", t("join_by_code")));
    const jform = el("form");
    jform.dataset.role = "join-code";
    const code = input("text", "code", t("code"));
    code.maxLength = 400; // the whole invite link fits (parseJoin takes the code out of it)
    code.autocomplete = "off";
    const jerr = el("div", "error-text");
    const jbtn = el("button", "btn", t("join"));
    jbtn.type = "submit";
    const row = el("div", "row");
    row.append(code, jbtn);
    jform.append(row, jerr);
    jform.addEventListener("submit", async (event) => {
      event.preventDefault();
      jerr.textContent = "";
      const { table, joinCode } = parseJoin(code.value);
      if (!table) return;
      try {
        await this.h.conn.request("sit", { table, seat: null, code: joinCode });
        this.h.onOpenTable(table, joinCode);
      } catch (error) {
        if (error.code === "table_full") {
          this.h.onOpenTable(table, joinCode);
          return;
        }
        jerr.textContent = error.message;
      }
    });
    join.append(jform);

    this.root.append(tablesPanel, create, join);
  }

  /** A guest may register (username and password) and keep this account and its history. */
  registerBox() {
    const box = el("details");
    box.dataset.role = "register";
    box.append(el("summary", "muted", t("register_keep")));
    const form = el("form");
    const user = input("text", "username");
    user.autocomplete = "username";
    const pass = input("password", "password");
    pass.autocomplete = "new-password";
    const err = el("div", "error-text");
    const submit = el("button", "btn small", t("register"));
    submit.type = "submit";
    form.append(field(t("username"), user), field(t("password"), pass), submit, err);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      err.textContent = "";
      try {
        const answer = await api("POST", "/api/register", { username: user.value.trim(), password: pass.value });
        session.save(answer.token, answer.account);
        this.h.conn.stop();
        this.h.conn.start();
        this.render();
        this.refresh();
      } catch (error) {
        err.textContent = error.message;
      }
    });
    box.append(form);
    return box;
  }

  /** Every table where this player holds a seat (GET /api/me/seats): one tap back to each. */
  showSeats(seats) {
    const key = JSON.stringify(seats);
    if (key === this.seatsKey) return; // unchanged: the buttons stay put under a finger about to tap
    this.seatsKey = key;
    if (this.seatsPanel) this.seatsPanel.remove();
    this.seatsPanel = null;
    if (!seats.length) return;
    const panel = el("div", "panel seats-panel");
    panel.dataset.role = "my-seats";
    for (const s of seats) {
      const b = el("button", "btn", `${t("back_to_table")} · ${s.name || `${t("table")} ${s.table}`} · ${t("seat_n", { n: s.seat + 1 })}`);
      b.dataset.action = "back-to-table";
      b.dataset.table = s.table;
      if (s.status === "playing") b.append(el("span", "tag", t("in_game")));
      b.addEventListener("click", () => this.h.onOpenTable(s.table, null));
      panel.append(b);
    }
    this.seatsPanel = panel;
    this.root.insertBefore(panel, this.root.children[1] || null);
  }

  async refresh() {
    let tables;
    try {
      const [lobby, mine] = await Promise.all([api("GET", "/api/tables"), api("GET", "/api/me/seats")]);
      tables = lobbyOrder(lobby.tables);
      this.showSeats(mine.seats);
      ({ botName, playerName } = await import("./table.js")); // names as the table gives them
    } catch {
      return;
    }
    const key = JSON.stringify(tables);
    if (key === this.listKey) return; // unchanged: redrawn only when a table changed
    this.listKey = key;
    this.list.innerHTML = "";
    if (!tables.length) {
      this.list.append(el("li", "muted", t("no_tables")));
      return;
    }
    for (const table of tables) {
      const li = el("li");
      li.dataset.table = table.id;
      const seated = table.seats.filter(Boolean).length;
      const name = el("span", "tname", table.name || `${t("table")} ${table.id}`);
      if (table.status === "playing") name.append(el("span", "tag", t("in_game")));
      li.append(name, el("span", "muted", t("seats_taken", { n: seated })));
      const me = (session.account || {}).id;
      if (me && table.seats.some((p) => p && p.id === me)) name.append(el("span", "tag", t("your_table"))); // by account, not by name
      const sit = el("button", "btn small", t("take_seat"));
      sit.dataset.action = "sit";
      sit.addEventListener("click", async () => {
        try {
          await this.h.conn.request("sit", { table: table.id, seat: null });
          this.h.onOpenTable(table.id, null);
        } catch (error) {
          this.h.toast(error.message);
        }
      });
      const watch = el("button", "btn small secondary", t("watch"));
      watch.dataset.action = "watch";
      watch.addEventListener("click", () => this.h.onOpenTable(table.id, null));
      const full = el("span", "tag full", t("table_full_tag")); // nothing to tap at a full table
      full.dataset.role = "table-full";
      li.append(seated >= 4 ? full : sit, watch);
      const s = table.settings;
      const meta = el("div", "tmeta", [
        table.seats.map((p, i) => (p ? (p.bot ? botName(i, p.bot) : `${playerName(p)}${me && p.id === me ? ` (${t("you")})` : ""}`) : t("empty_seat"))).join(" · "),
        t("settings_summary", { timer: s.turn_seconds, games: s.games ? t("n_games", { n: s.games }) : t("endless"), bots: t(`bot_${s.bot_level}`) }),
      ].join(" — "));
      li.append(meta);
      this.list.append(li);
    }
  }
}
