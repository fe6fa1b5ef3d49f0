// Making an event (issue 30), #/newevent[?club=ID]: a registered account's duplicate event (boards,
// bots, start now or at a time, end) or Swiss (rounds, games a round, place points, start at a time
// or when its owner starts it), for one of its clubs or as an unlisted link; POST /api/events, then
// the event's page, whose link is there to share. The server checks every value (its words show).

import { button, el } from "./dom.js";
import { t } from "./i18n.js";
import { api, session } from "./net.js";
import { eventHash } from "./eventplay.js";
import { field, input } from "./signin.js";
import { serverConfig } from "./serverconfig.js";

const KINDS = ["duplicate", "swiss"]; // the kinds POST /api/events takes (protocol EventCreate)
const BOARDS = [4, 8, 12, 16]; // offered; the server takes 1–32
const PLACE_POINTS = [3, 2, 1, 0]; // 上游, 二游, 三游, 下游 (the server's default, R30)

function select(name, options, chosen) {
  const s = el("select");
  s.name = name;
  for (const [value, label] of options) {
    const o = el("option", "", label);
    o.value = String(value);
    o.selected = String(value) === String(chosen);
    s.append(o);
  }
  return s;
}

function number(name, value, min, max) {
  const i = input("number", name);
  Object.assign(i, { value: String(value), min: String(min), max: String(max), step: "1" });
  return i;
}

/** A datetime-local input's value as Unix seconds (null when empty). */
export const seconds = (value) => (value ? new Date(value).getTime() / 1000 : null);

/** The body of POST /api/events from the form's values, e.g. {kind: "duplicate", name, boards: 8,
 *  bot_level: "expert"} — a start only when chosen (none: now, or a Swiss's owner starts it). */
export function eventBody(v) {
  const body = { kind: v.kind, name: v.name.trim() };
  if (v.bot_level) body.bot_level = v.bot_level;
  if (v.club) body.club = v.club;
  if (v.start === "at") body.starts_at = seconds(v.starts_at);
  if (v.kind === "duplicate") {
    body.boards = Number(v.boards);
    if (v.ends_at) body.ends_at = seconds(v.ends_at);
  } else {
    Object.assign(body, { rounds: Number(v.rounds), games: Number(v.games), place_points: v.place_points.map(Number) });
  }
  return body;
}

/** #/newevent; h: {club (preselected or null), onBack(), toast} */
export async function newEventScreen(root, h) {
  root.innerHTML = "";
  root.className = "page";
  const panel = el("div", "panel ev-new");
  panel.dataset.role = "new-event";
  const title = el("h2", "", t("ev_new"));
  title.append(el("span", "spacer"), button("btn small secondary", t("lobby"), "lobby", h.onBack));
  panel.append(title);
  root.append(panel);
  const account = session.account || {};
  if (!account.username) {
    panel.append(el("div", "muted", t("ev_register_to_make")));
    return;
  }
  let clubs = [];
  try {
    clubs = (await api("GET", "/api/me/clubs")).clubs.filter((c) => c.role !== "pending");
  } catch {
    clubs = []; // an unlisted event may still be made
  }
  panel.append(form(account, clubs, h));
}

function form(account, clubs, h) {
  const f = el("form");
  const kind = select("kind", KINDS.map((k) => [k, t(`ev_kind_${k}`)]), "duplicate");
  const name = input("text", "name");
  Object.assign(name, { maxLength: 60, required: true, value: t("ev_name_default", { name: account.nickname || "" }) });
  const club = select("club", [["", t("ev_unlisted")], ...clubs.map((c) => [c.id, t("ev_club_of", { name: c.name })])], h.club || "");
  const bots = select("bot_level", serverConfig.bot_levels.map(({ name: level }) => [level, t(`bot_${level}`)]), serverConfig.default_bot_level || "expert");
  const boards = select("boards", BOARDS.map((n) => [n, String(n)]), 8);
  const rounds = number("rounds", 3, 1, 20);
  const games = number("games", 1, 1, 16);
  const points = PLACE_POINTS.map((p, n) => number(`place_${n}`, p, -99, 99));
  const pointsRow = el("div", "row sw-points");
  pointsRow.append(el("label", "", t("ev_place_points")), ...points);
  const start = select("start", [], "now");
  const startsAt = input("datetime-local", "starts_at");
  const endsAt = input("datetime-local", "ends_at");
  const endRow = field(t("ev_end"), endsAt);
  endRow.append(el("div", "muted ev-hint", t("ev_end_default")));
  const duplicateOnly = [field(t("ev_boards_n"), boards), endRow];
  const swissOnly = [field(t("ev_rounds"), rounds), field(t("ev_games_per_round"), games), pointsRow];
  const startRow = field(t("ev_start"), start);
  const atRow = field("", startsAt);
  const redraw = () => {
    const swiss = kind.value === "swiss";
    const chosen = start.value || "now";
    start.replaceChildren(...[[swiss ? "owner" : "now", t(swiss ? "ev_start_owner" : "ev_start_now")], ["at", t("ev_start_at")]].map(([v, label]) => {
      const o = el("option", "", label);
      o.value = v;
      o.selected = v === chosen;
      return o;
    }));
    for (const row of duplicateOnly) row.hidden = swiss;
    for (const row of swissOnly) row.hidden = !swiss;
    atRow.hidden = start.value !== "at";
  };
  kind.addEventListener("change", redraw);
  start.addEventListener("change", redraw);
  redraw();
  const err = el("div", "error-text");
  err.dataset.role = "new-event-error";
  const submit = el("button", "btn ev-play", t("ev_create"));
  submit.type = "submit";
  submit.dataset.action = "create-event";
  f.append(field(t("ev_kind"), kind), field(t("ev_name"), name), field(t("ev_where"), club), field(t("ev_bots"), bots), duplicateOnly[0], ...swissOnly, startRow, atRow, endRow, submit, err);
  f.addEventListener("submit", async (event) => {
    event.preventDefault();
    err.textContent = "";
    if (start.value === "at" && !startsAt.value) {
      err.textContent = t("ev_pick_time"); // 定时开始 needs its time
      return;
    }
    const body = eventBody({
      kind: kind.value, name: name.value, club: club.value, bot_level: bots.value, boards: boards.value, rounds: rounds.value,
      games: games.value, place_points: points.map((p) => p.value), start: start.value, starts_at: startsAt.value, ends_at: endsAt.value,
    });
    submit.disabled = true;
    try {
      const answer = await api("POST", "/api/events", body);
      h.toast(t("ev_created_share"));
      location.hash = eventHash(answer.event.id);
    } catch (error) {
      submit.disabled = false;
      err.textContent = error.message;
    }
  });
  return f;
}
