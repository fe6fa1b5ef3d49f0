// Clubs (俱乐部, issue 29): your clubs and a new one; a club's page — its invite link, members (who is
// online and at which room), its rooms, recent sessions (each one's settlement: GET
// /api/tables/{id}/session) and its standings by week, month or all time. An invite link,
// #/club/ID?code=CODE, joins the club and opens its page.

import { button, el } from "./dom.js";
import { getLang, t } from "./i18n.js";
import { api, session } from "./net.js";
import { eventsSection } from "./eventlist.js";

function header(title, onBack) {
  const h2 = el("h2", "", title);
  h2.append(el("span", "spacer"), button("btn small secondary", t("lobby"), "lobby", onBack));
  return h2;
}

/** A spacer that pushes what follows to the row's end. */
function gap() {
  const g = el("span", "spacer");
  g.style.flex = "1";
  return g;
}

/** A section's heading on the club page, with room above it. */
function section(text) {
  const h2 = el("h2", "", text);
  h2.style.marginTop = "18px";
  return h2;
}

function role(r) {
  return t(`club_role_${r}`);
}

/** The invite link of a club: the page's address with #/club/ID?code=CODE. */
export function inviteLink(club) {
  const base = `${location.origin}${location.pathname}`;
  return `${base}#/club/${encodeURIComponent(club.id)}?code=${encodeURIComponent(club.invite_code)}`;
}

/** handlers: {conn, clubId (null: your clubs), code (an invite's), onBack(), onClub(id), onOpenTable(id, code), toast} */
export async function clubsScreen(root, h) {
  root.innerHTML = "";
  root.className = "page";
  const panel = el("div", "panel club");
  panel.dataset.role = h.clubId ? "club" : "clubs";
  root.append(panel);
  if (h.clubId && h.code) {
    try {
      await api("POST", `/api/clubs/${encodeURIComponent(h.clubId)}/join`, { code: h.code });
    } catch (error) {
      panel.append(header(t("clubs"), h.onBack), el("div", "error-text", error.message));
      return;
    }
    h.onClub(h.clubId); // the page without the code in its address
    return;
  }
  if (h.clubId) await clubPage(root, panel, h);
  else await myClubs(panel, h);
}

async function myClubs(panel, h) {
  panel.append(header(t("clubs"), h.onBack));
  const list = el("ul", "table-list");
  list.dataset.role = "my-clubs";
  panel.append(list);
  try {
    const { clubs } = await api("GET", "/api/me/clubs");
    if (!clubs.length) list.append(el("li", "muted", t("no_clubs")));
    for (const club of clubs) {
      const li = el("li", "row");
      li.append(el("b", "", club.name), el("span", "muted", ` ${role(club.role)}`), gap());
      if (club.role !== "pending") li.append(button("btn small", t("open"), "open-club", () => h.onClub(club.id)));
      list.append(li);
    }
  } catch (error) {
    list.append(el("li", "error-text", error.message));
  }
  if (!(session.account || {}).username) {
    panel.append(el("div", "muted", t("club_register_to_own")));
    return;
  }
  const form = el("form", "row");
  form.dataset.role = "create-club";
  const name = el("input");
  name.name = "club_name";
  name.maxLength = 40;
  name.placeholder = t("club_name");
  const err = el("div", "error-text");
  const submit = el("button", "btn", t("create_club"));
  submit.type = "submit";
  submit.dataset.action = "create-club";
  form.append(name, submit);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    err.textContent = "";
    try {
      const { club } = await api("POST", "/api/clubs", { name: name.value.trim() });
      h.onClub(club.id);
    } catch (error) {
      err.textContent = error.message;
    }
  });
  panel.append(form, err);
}

async function clubPage(root, panel, h) {
  const id = encodeURIComponent(h.clubId);
  let page;
  try {
    page = await api("GET", `/api/clubs/${id}`);
  } catch (error) {
    panel.append(header(t("clubs"), h.onBack), el("div", "error-text", error.message));
    return;
  }
  const { club, members, rooms, sessions } = page;
  const boss = club.role === "owner" || club.role === "admin";
  const reload = () => clubsScreen(root, { ...h, code: null });
  const title = header(club.name, h.onBack);
  title.dataset.role = "club-name";
  panel.append(title);
  if (club.description) panel.append(el("div", "muted", club.description));

  // the invite link, to send to the group chat
  const link = inviteLink(club);
  const invite = el("div", "row");
  const shown = el("input");
  shown.readOnly = true;
  shown.value = link;
  shown.dataset.role = "invite-link";
  invite.append(
    shown,
    button("btn small", t("share_link"), "share-link", async () => {
      if (navigator.share) {
        navigator.share({ title: club.name, text: t("club_invite_text", { name: club.name }), url: link }).catch(() => {});
      } else {
        await navigator.clipboard?.writeText(link).catch(() => {});
        h.toast(t("link_copied"));
      }
    }),
  );
  panel.append(section(t("club_invite")), invite);

  // rooms: enter one, or open a new one with the club's preset
  const roomList = el("ul", "table-list");
  roomList.dataset.role = "club-rooms";
  if (!rooms.length) roomList.append(el("li", "muted", t("no_rooms")));
  for (const room of rooms) {
    const li = el("li", "row");
    const taken = room.seats.filter((s) => s).length;
    li.append(el("b", "", room.name || room.id), el("span", "muted", ` ${taken}/4 · ${t(`room_status_${room.status}`)}`), gap());
    li.append(button("btn small", t("enter"), "enter-room", async () => {
      // take a free seat when there is one; a full room is watched
      await h.conn.request("sit", { table: room.id, seat: null, code: room.code }).catch(() => {});
      h.onOpenTable(room.id, room.code);
    }));
    if (boss && room.status !== "playing") {
      li.append(button("btn small secondary", t("close_room"), "close-room", () =>
        api("DELETE", `/api/clubs/${id}/rooms/${encodeURIComponent(room.id)}`).then(reload, (e) => h.toast(e.message))));
    }
    roomList.append(li);
  }
  const newRoom = button("btn small", t("new_room"), "new-room", async () => {
    try {
      const settings = { club: club.id, name: `${club.name} ${rooms.length + 1}` };
      const ack = await h.conn.request("create_table", { settings });
      const table = ack.data.table;
      await h.conn.request("sit", { table: table.id, seat: null, code: table.code || null });
      h.onOpenTable(table.id, table.code || null);
    } catch (error) {
      h.toast(error.message);
    }
  });
  const roomsHead = section(t("club_rooms"));
  roomsHead.append(el("span", "spacer"), newRoom);
  panel.append(roomsHead, roomList);
  panel.append(eventsSection(club.id)); // the club's events and 创建比赛 (issue 30)

  // members: who is online, and at which room
  const names = new Map(rooms.map((r) => [r.id, r.name || r.id]));
  const memberList = el("ul", "table-list");
  memberList.dataset.role = "club-members";
  for (const m of members) {
    const li = el("li", "row");
    const dot = el("span", m.online ? "dot online" : "dot", m.online ? "●" : "○");
    dot.dataset.role = m.online ? "online" : "offline";
    dot.style.color = m.online ? "#2e7d32" : "#999";
    li.append(dot, el("b", "", ` ${m.nickname}`), el("span", "muted", ` ${role(m.role)}`));
    if (m.table) li.append(el("span", "muted", ` · ${t("at_room", { name: names.get(m.table) || m.table })}`));
    li.append(gap());
    const mid = encodeURIComponent(m.account_id);
    if (boss && m.role === "pending") {
      li.append(button("btn small", t("approve"), "approve", () =>
        api("POST", `/api/clubs/${id}/members/${mid}`, { role: "member" }).then(reload, (e) => h.toast(e.message))));
    }
    if (boss && (m.role === "member" || m.role === "pending")) {
      li.append(button("btn small secondary", t("remove"), "remove-member", () =>
        api("DELETE", `/api/clubs/${id}/members/${mid}`).then(reload, (e) => h.toast(e.message))));
    }
    memberList.append(li);
  }
  panel.append(section(t("club_members", { n: members.length })), memberList);

  // recent sessions, each with its settlement
  const sessionList = el("ul", "table-list");
  sessionList.dataset.role = "club-sessions";
  if (!sessions.length) sessionList.append(el("li", "muted", t("club_no_sessions")));
  for (const s of sessions) {
    const li = el("li");
    const when = new Date(s.last_game_at * 1000).toLocaleString(getLang() === "zh" ? "zh-CN" : "en");
    const top = el("div", "row");
    top.append(el("b", "", s.name || s.table), el("span", "muted", `${when} · ${t("n_games_played", { n: s.games })}`), gap());
    const detail = el("div", "muted", s.players.map((p) => `${p.nickname} ${p.total > 0 ? "+" : ""}${p.total}`).join(" · "));
    top.append(button("btn small secondary", t("settlement"), "session", async () => {
      try {
        const found = await api("GET", `/api/tables/${encodeURIComponent(s.table)}/session`);
        detail.textContent = found.players.map((p) => `${p.nickname} ${p.total > 0 ? "+" : ""}${p.total}`).join(" · ");
      } catch (error) {
        h.toast(error.message);
      }
    }));
    li.append(top, detail);
    sessionList.append(li);
  }
  panel.append(section(t("club_sessions")), sessionList);

  // standings
  const board = el("ol", "table-list");
  board.dataset.role = "club-standings";
  const tabs = el("div", "row");
  const show = async (period) => {
    board.replaceChildren();
    for (const b of tabs.children) b.classList.toggle("secondary", b.dataset.period !== period);
    try {
      const { players } = await api("GET", `/api/clubs/${id}/leaderboard?period=${period}`);
      if (!players.length) board.append(el("li", "muted", t("no_standings")));
      for (const p of players) {
        const li = el("li", "row");
        li.append(el("span", "", p.nickname), el("span", "muted", t("n_games_played", { n: p.games })), gap(), el("b", "", `${p.total > 0 ? "+" : ""}${p.total}`));
        board.append(li);
      }
    } catch (error) {
      board.append(el("li", "error-text", error.message));
    }
  };
  for (const period of ["week", "month", "all"]) {
    const b = button("btn small", t(`period_${period}`), "period", () => show(period));
    b.dataset.period = period;
    tabs.append(b);
  }
  panel.append(section(t("club_standings")), tabs, board);
  show("week");

  if (club.role === "owner") panel.append(presetForm(club, reload, h));
}

/** The owner's form: the rooms' preset (局数, turn timer, 记牌器) and whether the club takes requests. */
function presetForm(club, reload, h) {
  const form = el("form");
  form.dataset.role = "club-preset";
  const games = el("select");
  for (const g of ["", "1", "2", "4", "8", "16"]) {
    const o = el("option", "", g ? t("n_games", { n: g }) : t("endless"));
    o.value = g;
    o.selected = String(club.preset.games ?? "") === g;
    games.append(o);
  }
  games.name = "games";
  const counter = el("input");
  counter.type = "checkbox";
  counter.checked = club.preset.counter ?? true;
  const check = (on) => {
    const box = el("input");
    box.type = "checkbox";
    box.checked = on !== false;
    return box;
  };
  const bots = check(club.preset.bots);
  const spectators = check(club.preset.spectators);
  const requests = el("input");
  requests.type = "checkbox";
  requests.checked = club.by_request;
  const save = el("button", "btn small", t("save"));
  save.type = "submit";
  save.dataset.action = "save-preset";
  const label = (text, input) => {
    const l = el("label", "row", text);
    l.prepend(input);
    return l;
  };
  form.append(section(t("club_preset")), label(t("games"), games), label(t("counter_short"), counter), label(t("club_bots"), bots), label(t("club_spectators"), spectators), label(t("club_by_request"), requests), save);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const preset = { counter: counter.checked, bots: bots.checked, spectators: spectators.checked, ...(games.value ? { games: Number(games.value) } : {}) };
    try {
      await api("PATCH", `/api/clubs/${encodeURIComponent(club.id)}`, { preset, by_request: requests.checked });
      reload();
    } catch (error) {
      h.toast(error.message);
    }
  });
  return form;
}
