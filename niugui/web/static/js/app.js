// The page: a small hash router over the lobby, a table, the history, the replay viewer and the
// rules, and the one WebSocket connection shared by them. Leaving a game in progress never escapes
// by surprise: only the table's own ← 大厅 (which asks) stands up; any other way out keeps the seat
// and turns on 托管.

import { button, el } from "./dom.js";
import { getLang, setLang, t } from "./i18n.js";
import { Connection, api, session, signOut } from "./net.js";
import { signInPanel } from "./signin.js";

// The first screen (sign-in) loads with the page; the others when first opened (the lobby's and the
// table's right after the first screen is up), so that a slow phone is interactive sooner: the
// modules of the first screen and its style sheet come in one round trip (a browser opens at most
// six connections to a server; a seventh file would wait for a second round trip).
const screens = {
  lobby: () => import("./lobby.js"),
  table: () => import("./tablescreen.js"),
  replay: () => import("./replay.js"),
  history: () => import("./history.js"),
  rules: () => import("./rulespage.js"),
  profile: () => import("./profile.js"),
  tutorial: () => import("./tutorial.js"),
  friends: () => import("./friends.js"),
  clubs: () => import("./clubs.js"),
  event: () => import("./events.js"),
  newevent: () => import("./eventnew.js"),
};

const app = document.getElementById("app");
const banner = document.getElementById("conn-banner");
let screen = null;
let bannerTimer = null;
let quickplay = null; // quickplay.js, once loaded (by the lobby, or by a queue message)

function quick() {
  return import("./quickplay.js").then((module) => (quickplay = module));
}

function toast(text, role = "toast") {
  const box = el("div", "toast", text);
  box.dataset.role = role;
  document.body.append(box);
  setTimeout(() => box.remove(), 3500);
}

function langButton() {
  return button("tb-btn", t("lang_switch"), "lang", () => {
    setLang(getLang() === "zh" ? "en" : "zh").then(route);
  });
}

function showStatus(status, info) {
  clearInterval(bannerTimer);
  if ((status === "offline" || status === "reconnecting") && quickplay) quickplay.forgetQueue(); // the server let us go
  if (screen && screen.onStatus) screen.onStatus(status);
  banner.dataset.status = status;
  if (status === "online" || status === "idle") {
    banner.className = "banner hidden";
    return;
  }
  if (status === "unauthorized") {
    session.clear();
    conn.stop();
    location.hash = "#/";
    route();
    return;
  }
  banner.className = `banner ${status === "offline" ? "offline" : "info"}`;
  const draw = () => {
    if (status === "offline" && !navigator.onLine) {
      banner.textContent = t("offline_no_network");
    } else if (status === "offline") {
      const s = Math.max(0, Math.ceil((info.until - Date.now()) / 1000));
      banner.textContent = t("offline_banner", { s });
    } else {
      banner.textContent = status === "reconnecting" ? t("reconnecting") : t("connecting");
    }
  };
  draw();
  if (status === "offline") bannerTimer = setInterval(draw, 250);
}

const conn = new Connection({
  onStatus: showStatus,
  onMessage: (msg) => {
    if (msg.type === "welcome") {
      session.saveAccount(msg.account);
      if (screen && screen.onWelcome) screen.onWelcome(msg);
      return;
    }
    if (msg.type === "invitation") { // from a friend (friends.js)
      screens.friends().then(({ showInvitation }) => showInvitation(msg, { conn, onOpenTable: goTable }));
      return;
    }
    if (msg.type === "event_seated") { // a Swiss round began and seated you (issue 30)
      import("./eventplay.js").then(({ playNext }) => {
        if (screenKind === "table") toast(t("sw_round_began", { n: msg.round }), "round-began"); // its result stays; 下一副 leads on
        else playNext(conn, msg.event).then(({ id, code }) => goTable(id, code), (error) => toast(error.message));
      });
      return;
    }
    if (msg.type === "queue") {
      quick().then(({ onQueueMessage }) => onQueueMessage(msg, goTable));
      return;
    }
    if (msg.type === "event" && !msg.replay && timedOutForMe(msg)) toast(timeoutWords(msg.state), "timeout-notice");
    if (screen && screen.onMessage) screen.onMessage(msg);
  },
});

/** What a timeout on my seat means: at the first, that one more hands the seat to 托管 (the server's
 *  rule: two expiries in a row); at the second, that 托管 plays now and how to take the seat back. */
function timeoutWords(state) {
  const seat = state.seats[state.you];
  if (seat && seat.autoplay) return t("timeout_autoplay");
  return `${t("timeout_notice")}${getLang() === "zh" ? "；" : "; "}${t("timeout_next")}`;
}

/** The turn timer ran out on my seat and the server played the least it could for me. */
function timedOutForMe(msg) {
  const ev = msg.event;
  const me = msg.state ? msg.state.you : null;
  return (ev.kind === "play" || ev.kind === "pass") && ev.by === "timeout" && me !== null && ev.seat === me;
}

/** The table I hold cards at in a game in progress, when the screen is that table. */
function liveTable() {
  if (!screen || screenKind !== "table") return null;
  const st = screen.tstate;
  const view = screen.view;
  const me = st ? st.you : null;
  if (!st || st.status !== "playing" || !view || view.over || me === null || me === undefined) return null;
  return view.counts[me] > 0 ? screen.tableId : null;
}

// Closing the tab or reloading mid-game: the browser asks (where it may); if the page goes anyway,
// the seat is kept — the server turns on 托管 when the connection drops, and the grace period runs.
window.addEventListener("beforeunload", (event) => {
  if (liveTable()) {
    event.preventDefault();
    event.returnValue = "";
  }
});

function topbar(title = "") {
  const bar = el("div", "topbar");
  const brand = el("div", "brand");
  brand.append(el("span", "logo", "♠3"), t("title"));
  bar.append(brand, el("div", "grow", title));
  if (session.token) {
    const out = button("tb-btn", t("sign_out"), "sign-out", async () => {
      conn.stop();
      await signOut();
      location.hash = "#/";
      route();
    });
    bar.append(out);
  }
  bar.append(langButton());
  return bar;
}

let screenKind = null;

function mount(makeScreen, withBar = true, title = "", kind = null) {
  screenKind = kind;
  if (screen && screen.destroy) screen.destroy();
  screen = null;
  app.innerHTML = "";
  app.className = "";
  if (withBar) app.append(topbar(title));
  const holder = el("div");
  app.append(holder);
  screen = makeScreen(holder) || null;
  if (!withBar) {
    app.replaceChildren(holder);
  }
}

/** A replay's address; `n`, the game's number at its table, titles it as 战绩 names it (第 3 局). */
function replayHash(gameId, gameNo) {
  return `#/replay/${gameId}${gameNo ? `?n=${gameNo}` : ""}`;
}

function goTable(id, code) {
  location.hash = `#/table/${encodeURIComponent(id)}${code ? `?code=${encodeURIComponent(code)}` : ""}`;
}

/** Going from a live game to another screen (the back gesture, a link): keep the seat, 托管 on. */
function keepSeat(nextHash) {
  const table = liveTable();
  if (!table || nextHash.startsWith(`#/table/${encodeURIComponent(table)}`)) return;
  if (nextHash.startsWith("#/rules")) return; // a look at the rules and back: the turn timer still runs
  conn.request("autoplay", { table, on: true }).catch(() => {});
  toast(t("left_kept"), "left-kept");
}

/** Open a screen of its own module (loaded the first time), unless the page moved on meanwhile. */
function later(kind, open) {
  const hash = location.hash;
  const asked = routes;
  screens[kind]().then((module) => {
    if (location.hash === hash && routes === asked) open(module);
  });
}

let routes = 0; // how many times the page was routed (a screen still loading for an older route stays shut)

function route() {
  routes += 1;
  keepSeat(location.hash || "#/");
  document.title = t("title");
  const hash = location.hash || "#/";
  const [path, query] = hash.slice(1).split("?");
  const parts = path.split("/").filter(Boolean);
  const params = new URLSearchParams(query || "");
  if (parts[0] === "rules") {
    later("rules", ({ rulesScreen }) =>
      mount((root) => rulesScreen(root, { onBack: () => history.back(), langButton, rule: parts[1] || null }), false),
    );
    return;
  }
  if (parts[0] === "tutorial") {
    const nickname = (session.account || {}).nickname || "";
    later("tutorial", ({ TutorialScreen }) =>
      mount((root) => new TutorialScreen(root, { onBack: () => (location.hash = "#/"), langButton, nickname }), false),
    );
    return;
  }
  if (parts[0] === "replay") {
    later("replay", ({ ReplayScreen }) =>
      mount((root) => new ReplayScreen(root, { gameId: parts[1] || null, gameNo: params.get("n"), code: params.get("code"), onBack: () => history.back(), langButton }), false),
    );
    return;
  }
  if (!session.token) {
    mount((root) => {
      root.className = "page";
      root.append(
        signInPanel(() => {
          conn.start();
          route();
        }),
      );
      return null;
    });
    return;
  }
  if (!conn.ws && conn.status !== "offline") conn.start();
  if (parts[0] === "table" && parts[1]) {
    const id = decodeURIComponent(parts[1]);
    later("table", ({ TableScreen }) =>
      mount(
        (root) =>
          new TableScreen(root, id, params.get("code"), {
            conn,
            account: () => session.account,
            onLobby: () => (location.hash = "#/"),
            onReplay: (gameId, gameNo) => (location.hash = replayHash(gameId, gameNo)),
            toast,
            langButton,
          }),
        false,
        "",
        "table",
      ),
    );
    return;
  }
  if (parts[0] === "profile" || parts[0] === "leaderboard") {
    const onPlayer = (id) => (location.hash = `#/profile/${encodeURIComponent(id)}`);
    const onBack = () => (location.hash = "#/");
    later("profile", ({ leaderboardScreen, profileScreen }) => mount((root) => {
      if (parts[0] === "leaderboard") leaderboardScreen(root, { onBack, onPlayer });
      else {
        const onReplay = (id, gameNo) => (location.hash = replayHash(id, gameNo));
        const onLeaderboard = () => (location.hash = "#/leaderboard");
        profileScreen(root, { playerId: parts[1] ? decodeURIComponent(parts[1]) : null, onBack, onReplay, onLeaderboard });
      }
      return null;
    }));
    return;
  }
  if (parts[0] === "friends") {
    later("friends", ({ friendsScreen }) => mount((root) => {
      friendsScreen(root, { onBack: () => (location.hash = "#/"), onOpenTable: goTable, toast });
      return null;
    }));
    return;
  }
  if (parts[0] === "club" || parts[0] === "clubs") { // 俱乐部 (issue 29); #/club/ID?code=… joins by invite
    const onClub = (id) => (location.hash = `#/club/${encodeURIComponent(id)}`);
    later("clubs", ({ clubsScreen }) => mount((root) => {
      const clubId = parts[0] === "club" && parts[1] ? decodeURIComponent(parts[1]) : null;
      clubsScreen(root, { conn, clubId, code: params.get("code"), onBack: () => (location.hash = "#/"), onClub, onOpenTable: goTable, toast });
      return null;
    }));
    return;
  }
  if (parts[0] === "newevent") { // make a duplicate event or a Swiss, ?club=ID from a club's page (issue 30)
    later("newevent", ({ newEventScreen }) => mount((root) => {
      newEventScreen(root, { club: params.get("club"), onBack: () => history.back(), toast });
      return null;
    }));
    return;
  }
  if (parts[0] === "event" && parts[1]) { // an event's standings and boards (issue 30)
    later("event", ({ EventScreen }) => mount((root) => new EventScreen(root, {
      conn,
      eventId: decodeURIComponent(parts[1]),
      onBack: () => (location.hash = "#/"),
      onOpenTable: goTable,
      onReplay: ({ gameId, code }) => (location.hash = `#/replay/${gameId}${code ? `?code=${encodeURIComponent(code)}` : ""}`),
      toast,
    })));
    return;
  }
  if (parts[0] === "history") {
    later("history", ({ historyScreen }) => mount((root) => {
      historyScreen(root, {
        playerId: parts[1] ? decodeURIComponent(parts[1]) : null,
        onBack: () => (location.hash = "#/"),
        onReplay: (id, gameNo) => (location.hash = replayHash(id, gameNo)),
        onRecordFile: () => (location.hash = "#/replay"),
        onPlayer: (id) => (location.hash = `#/history/${encodeURIComponent(id)}`),
      });
      return null;
    }));
    return;
  }
  later("lobby", ({ LobbyScreen }) => mount((root) => {
    const lobby = new LobbyScreen(root, {
      conn,
      toast,
      onOpenTable: goTable,
      onHistory: () => (location.hash = "#/history"),
      onFriends: () => (location.hash = "#/friends"),
      onRules: () => (location.hash = "#/rules"),
      onLeaderboard: () => (location.hash = "#/leaderboard"),
      onProfile: () => (location.hash = "#/profile"),
      onClubs: () => (location.hash = "#/clubs"),
    });
    lobby.onWelcome = () => lobby.refresh();
    return lobby;
  }));
}

window.addEventListener("hashchange", route);
setLang(getLang());
if (session.token) {
  api("GET", "/api/me")
    .then((account) => session.saveAccount(account))
    .catch((error) => {
      if (error.status === 401 || error.status === 403) {
        session.clear();
        conn.stop();
        route();
      }
    });
}
route();
window.niugui = { conn, session };
window.addEventListener("load", () => {
  setTimeout(() => { // the lobby opens at once after signing in, and the table from the lobby
    screens.lobby().then(() => quick()).then(() => screens.table()).catch(() => {});
  }, 0);
  if ("serviceWorker" in navigator && location.protocol !== "file:") {
    // the shell from cache next time (sw.js); a failure only means no offline start
    navigator.serviceWorker.register("sw.js").catch(() => {});
  }
});
