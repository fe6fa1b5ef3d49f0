// The page: a small hash router over the lobby, a table, the history and the replay viewer, and the
// one WebSocket connection shared by them.

import { button, el } from "./dom.js";
import { historyScreen } from "./history.js";
import { getLang, setLang, t } from "./i18n.js";
import { LobbyScreen, signInPanel } from "./lobby.js";
import { Connection, api, session, signOut } from "./net.js";
import { leaderboardScreen, profileScreen } from "./profile.js";
import { forgetQueue, onQueueMessage } from "./quickplay.js";
import { ReplayScreen } from "./replay.js";
import { TableScreen } from "./tablescreen.js";

const app = document.getElementById("app");
const banner = document.getElementById("conn-banner");
let screen = null;
let bannerTimer = null;

function toast(text) {
  const box = el("div", "toast", text);
  box.dataset.role = "toast";
  document.body.append(box);
  setTimeout(() => box.remove(), 3500);
}

function langButton() {
  return button("tb-btn", t("lang_switch"), "lang", () => {
    setLang(getLang() === "zh" ? "en" : "zh");
    route();
  });
}

function showStatus(status, info) {
  clearInterval(bannerTimer);
  if (status === "offline" || status === "reconnecting") forgetQueue(); // the server let us go
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
    if (status === "offline") {
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
      welcomeSeats = msg.seats || [];
      if (screen && screen.onWelcome) screen.onWelcome(msg);
      return;
    }
    if (msg.type === "queue") {
      onQueueMessage(msg, goTable);
      return;
    }
    if (screen && screen.onMessage) screen.onMessage(msg);
  },
});
let welcomeSeats = [];

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

function mount(makeScreen, withBar = true, title = "") {
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

function goTable(id, code) {
  location.hash = `#/table/${encodeURIComponent(id)}${code ? `?code=${encodeURIComponent(code)}` : ""}`;
}

function route() {
  document.title = t("title");
  const hash = location.hash || "#/";
  const [path, query] = hash.slice(1).split("?");
  const parts = path.split("/").filter(Boolean);
  const params = new URLSearchParams(query || "");
  if (parts[0] === "replay") {
    mount((root) => new ReplayScreen(root, { gameId: parts[1] || null, onBack: () => history.back() }), false);
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
    mount(
      (root) =>
        new TableScreen(root, id, params.get("code"), {
          conn,
          account: () => session.account,
          onLobby: () => (location.hash = "#/"),
          onReplay: (gameId) => (location.hash = `#/replay/${gameId}`),
          toast,
          langButton,
        }),
      false,
    );
    return;
  }
  if (parts[0] === "profile" || parts[0] === "leaderboard") {
    const onPlayer = (id) => (location.hash = `#/profile/${encodeURIComponent(id)}`);
    const onBack = () => (location.hash = "#/");
    mount((root) => {
      if (parts[0] === "leaderboard") leaderboardScreen(root, { onBack, onPlayer });
      else {
        const onReplay = (id) => (location.hash = `#/replay/${id}`);
        const onLeaderboard = () => (location.hash = "#/leaderboard");
        profileScreen(root, { playerId: parts[1] ? decodeURIComponent(parts[1]) : null, onBack, onReplay, onLeaderboard });
      }
      return null;
    });
    return;
  }
  if (parts[0] === "history") {
    mount((root) => {
      historyScreen(root, {
        playerId: parts[1] ? decodeURIComponent(parts[1]) : null,
        onBack: () => (location.hash = "#/"),
        onReplay: (id) => (location.hash = `#/replay/${id}`),
        onPlayer: (id) => (location.hash = `#/history/${encodeURIComponent(id)}`),
      });
      return null;
    });
    return;
  }
  mount((root) => {
    const lobby = new LobbyScreen(root, {
      conn,
      toast,
      onOpenTable: goTable,
      onHistory: () => (location.hash = "#/history"),
      onReplay: () => (location.hash = "#/replay"),
      onLeaderboard: () => (location.hash = "#/leaderboard"),
      onProfile: () => (location.hash = "#/profile"),
    });
    lobby.onWelcome = () => lobby.showSeats(welcomeSeats, goTable);
    if (welcomeSeats.length) lobby.showSeats(welcomeSeats, goTable);
    return lobby;
  });
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
