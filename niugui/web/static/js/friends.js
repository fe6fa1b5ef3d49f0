// Friends (docs/protocol.md "Friends"): the friends panel (requests, who is online and where, the
// people you played with lately, blocks), one tap to invite a friend to your table, and what an
// invitation from a friend looks like.

import { t } from "./i18n.js";
import { api, errorText, session } from "./net.js";
import { button, el } from "./dom.js";

const path = (id) => encodeURIComponent(id);

/** Where a friend sits, in words: a table they may be found at, a private one, or nothing. */
export function whereWords(where) {
  if (!where) return "";
  if (!where.table) return t("friend_at_private");
  return t(where.status === "playing" ? "friend_playing_at" : "friend_waiting_at", { name: where.name || where.table });
}

/** One person's row: their name and, after it, the buttons given. */
function row(person, role, ...actions) {
  const li = el("li", "friend-row");
  li.dataset.role = role;
  li.dataset.account = person.account_id;
  const name = el("span", "friend-name", person.nickname);
  li.append(name, el("span", "spacer"), ...actions);
  return li;
}

function section(title, role, items, empty) {
  const box = el("div", "panel");
  box.append(el("h3", "", title));
  const list = el("ul", "friend-list");
  list.dataset.role = role;
  if (items.length) list.append(...items);
  else list.append(el("li", "muted", empty));
  box.append(list);
  return box;
}

/** The friends panel: `#/friends`. handlers: {onBack, onOpenTable(id, code), toast} */
export async function friendsScreen(root, handlers) {
  const { onBack, onOpenTable, toast } = handlers;
  root.innerHTML = "";
  root.className = "page";
  const head = el("div", "panel");
  const h2 = el("h2", "", t("friends"));
  h2.append(el("span", "spacer"), button("btn small secondary", t("lobby"), "back", onBack));
  head.append(h2);
  const me = session.account || {};
  const mine = el("div", "muted", t("friend_your_id", { id: me.id || "" }));
  mine.dataset.role = "my-id";
  const form = el("form", "friend-add");
  form.dataset.role = "add-friend";
  const who = el("input");
  who.name = "friend_id";
  who.maxLength = 32;
  who.placeholder = t("friend_id_placeholder");
  const add = el("button", "btn small", t("friend_add"));
  add.type = "submit";
  add.dataset.action = "add-friend";
  form.append(who, add);
  head.append(mine, form);
  root.append(head);

  const change = async (method, url, done) => {
    try {
      const answer = await api(method, url);
      if (done) toast(done(answer));
    } catch (error) {
      toast(errorText(error));
    }
    draw();
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const id = who.value.trim();
    if (!id) return;
    who.value = "";
    change("POST", `/api/friends/${path(id)}`, (a) => t(a.status === "friends" ? "friend_now" : "friend_requested"));
  });

  const body = el("div");
  body.dataset.role = "friends-body";
  root.append(body);

  async function draw() {
    let lists;
    let recent;
    try {
      [lists, recent] = await Promise.all([api("GET", "/api/me/friends"), api("GET", "/api/me/recent")]);
    } catch (error) {
      body.replaceChildren(el("div", "error-text", errorText(error)));
      return;
    }
    const friendIds = new Set(lists.friends.map((f) => f.account_id));
    const blockedIds = new Set(lists.blocked.map((f) => f.account_id));
    const askedIds = new Set(lists.outgoing.map((f) => f.account_id));
    const remove = (p) => button("btn small secondary", t("friend_remove"), "unfriend", () => change("DELETE", `/api/friends/${path(p.account_id)}`));
    const block = (p) => button("btn small secondary", t("friend_block"), "block", () => change("POST", `/api/blocks/${path(p.account_id)}`));
    const friends = lists.friends.map((f) => {
      const li = row(f, "friend", remove(f));
      li.dataset.online = String(f.online);
      const state = el("span", f.online ? "friend-on" : "muted", f.online ? t("friend_online") : t("friend_offline"));
      li.querySelector(".friend-name").after(state);
      if (f.where) {
        const where = el("span", "friend-where", whereWords(f.where));
        where.dataset.role = "where";
        if (f.where.table) {
          where.classList.add("link");
          where.addEventListener("click", () => onOpenTable(f.where.table, null));
        }
        state.after(where);
      }
      return li;
    });
    const incoming = lists.incoming.map((p) =>
      row(
        p,
        "incoming",
        button("btn small", t("friend_accept"), "accept", () => change("POST", `/api/friends/${path(p.account_id)}`)),
        button("btn small secondary", t("friend_decline"), "decline", () => change("DELETE", `/api/friends/${path(p.account_id)}`)),
        block(p),
      ),
    );
    const outgoing = lists.outgoing.map((p) => row(p, "outgoing", el("span", "muted", t("friend_pending")), remove(p)));
    const played = recent.players.map((p) => {
      const actions = [];
      if (!friendIds.has(p.account_id) && !askedIds.has(p.account_id) && !blockedIds.has(p.account_id)) {
        actions.push(button("btn small", t("friend_add"), "add-friend", () => change("POST", `/api/friends/${path(p.account_id)}`)));
      }
      if (!blockedIds.has(p.account_id)) actions.push(block(p));
      return row(p, "recent", ...actions);
    });
    const blocked = lists.blocked.map((p) =>
      row(p, "blocked", button("btn small secondary", t("friend_unblock"), "unblock", () => change("DELETE", `/api/blocks/${path(p.account_id)}`))),
    );
    const parts = [];
    if (incoming.length) parts.push(section(t("friend_requests"), "incoming", incoming, ""));
    parts.push(section(t("friend_list"), "friends", [...friends, ...outgoing], t("friend_none")));
    parts.push(section(t("friend_recent"), "recent", played, t("friend_recent_none")));
    if (blocked.length) parts.push(section(t("friend_blocked"), "blocked", blocked, ""));
    body.replaceChildren(...parts);
    body.dataset.ready = "true";
  }
  await draw();
}

/** At a table with a free seat: the button that lists your friends online, each invited with one tap. */
export function inviteFriendsButton(conn, tableId, toast) {
  const box = el("div", "invite-friends");
  box.dataset.role = "invite-friends";
  const open = button("btn small secondary", t("invite_friend"), "invite-friends", async () => {
    let lists;
    try {
      lists = await api("GET", "/api/me/friends");
    } catch (error) {
      toast(errorText(error));
      return;
    }
    const online = lists.friends.filter((f) => f.online);
    const list = el("ul", "friend-list");
    list.dataset.role = "online-friends";
    if (!online.length) list.append(el("li", "muted", t("friend_none_online")));
    for (const f of online) {
      const invite = button("btn small", t("invite_bot"), "invite-friend", async () => {
        try {
          await conn.request("invite", { table: tableId, friend: f.account_id, seat: null });
          toast(t("invited", { name: f.nickname }));
        } catch (error) {
          toast(error.code === "friend_offline" ? t("friend_went_offline", { name: f.nickname }) : errorText(error));
        }
      });
      list.append(row(f, "online-friend", invite));
    }
    box.querySelector("ul")?.remove();
    box.append(list);
  });
  box.append(open);
  return box;
}

/** An invitation from a friend: a card with Accept (sit, then open the table) and Not now. */
export function showInvitation(msg, { conn, onOpenTable }) {
  document.querySelector('[data-role="invitation"]')?.remove();
  const card = el("div", "invitation toast");
  card.dataset.role = "invitation";
  card.dataset.table = msg.table;
  card.append(el("div", "", t("invitation_from", { name: msg.by, table: msg.settings.name || msg.table })));
  const accept = button("btn small", t("friend_accept"), "accept-invitation", async () => {
    card.remove();
    try {
      await conn.request("sit", { table: msg.table, seat: msg.seat, code: msg.code });
    } catch {
      // the seat went to someone else: the table opens anyway, with its free seats
    }
    onOpenTable(msg.table, msg.code);
  });
  const later = button("btn small secondary", t("invitation_later"), "decline-invitation", () => card.remove());
  card.append(accept, later);
  document.body.append(card);
}
