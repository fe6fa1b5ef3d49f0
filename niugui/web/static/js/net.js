// Talking to the server: HTTP (sessions, lobby, history, records) and one WebSocket that reconnects
// by itself with backoff (docs/protocol.md). The session token lives in localStorage; it goes to the
// server in an Authorization header or in the WebSocket's first message (auth), never in a URL.

import { getLang, hasText, t } from "./i18n.js";

const TOKEN_KEY = "niugui.token";
const ACCOUNT_KEY = "niugui.account";

export const session = {
  get token() {
    return localStorage.getItem(TOKEN_KEY);
  },
  get account() {
    try {
      return JSON.parse(localStorage.getItem(ACCOUNT_KEY) || "null");
    } catch {
      return null;
    }
  },
  save(token, account) {
    localStorage.setItem(TOKEN_KEY, token);
    localStorage.setItem(ACCOUNT_KEY, JSON.stringify(account));
  },
  saveAccount(account) {
    localStorage.setItem(ACCOUNT_KEY, JSON.stringify(account));
  },
  clear() {
    localStorage.removeItem(TOKEN_KEY);
    localStorage.removeItem(ACCOUNT_KEY);
  },
};

/**
 * An HTTP call to the server's API; throws an Error whose message is in the page's language, from
 * the server's code (protocol.py HttpError; a 422 of field checks lists the fields). A structured
 * detail (an HttpError, a ReplayError) is kept as `error.detail`, the server's own words as
 * `error.serverMessage`. With {raw: true} the body is a string sent as it is (a record pasted by
 * the player: the server says what is wrong with it).
 */
export async function api(method, path, body, { raw = false } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (session.token) headers.Authorization = `Bearer ${session.token}`;
  const sent = body === undefined || raw ? body : JSON.stringify(body);
  let response;
  try {
    response = await fetch(path, { method, headers, body: sent });
  } catch {
    throw httpError({ code: "offline" }, 0, null);
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const detail = data && data.detail;
    if (Array.isArray(detail)) throw httpError({ code: "invalid_input", fields: detail }, response.status, null);
    const structured = detail && typeof detail === "object" ? detail : null;
    throw httpError(structured || { status: response.status }, response.status, structured);
  }
  return data;
}

function httpError(what, status, structured) {
  const error = new Error(errorText({ status, ...what }));
  error.status = status;
  error.code = what.code || null;
  error.detail = structured;
  error.serverMessage = structured ? structured.message : null;
  return error;
}

/** Sign out: the server ends the session (with `everywhere`, every session of the account), then the
 * page forgets it. The page forgets it even when the server cannot be reached. */
export async function signOut(everywhere = false) {
  try {
    if (session.token) await api("POST", "/api/logout", { everywhere });
  } catch {
    // offline or already expired: forgetting the token here is all that is left to do
  }
  session.clear();
}

/** A request refused by the server: its `code` and `rule`; the message is the page's words for
 * them (errorText below), the server's own in `serverMessage`. */
export class RequestError extends Error {
  constructor(message) {
    super(errorText(message));
    this.code = message.code;
    this.rule = message.rule;
    this.serverMessage = message.message;
  }
}

/** Waits before a `moving` request is sent again (the last repeats), and how long it is retried. */
const MOVING_RETRY_MS = [250, 500, 1000, 2000];
const MOVING_PATIENCE_MS = 15000;

/**
 * The WebSocket connection. Callbacks: onMessage(msg) for welcome/event/snapshot, onStatus(status,
 * info) with status "connecting" | "online" | "offline" (info.retryIn seconds) | "unauthorized".
 *
 * Table affinity (docs/scaling.md): on a cluster the welcome names the node that answered, and the
 * answer to a watch or sit names the table's owner when it is another node (data.node). The page then
 * connects once to `/ws?node=<owner>` (the front routes it there), keeping the old socket until the
 * new one has rejoined the table (the seat never goes offline): at most one move per table and owner,
 * never when the hint is the node it is on; a hinted node that does not let the page in (dead, or a
 * front without the route) is forgotten at the next reconnect.
 */
export class Connection {
  constructor({ onMessage, onStatus }) {
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.ws = null;
    this.nextId = 1;
    this.pending = new Map();
    this.attempt = 0;
    this.retryTimer = null;
    this.pingTimer = null;
    this.closedByUs = false;
    this.status = "idle";
    this.node = null; // the node that answered (welcome.node), on a cluster
    this.target = null; // the node asked for in the URL, after a hint
    this.followed = new Set(); // "table@node": the hints moved for (never twice)
    this.next = null; // the socket to a table's owner, until its welcome
    this.retiring = null; // the socket it replaced, until the table is rejoined on the new one
    this.retireTimer = null;
    window.addEventListener("online", () => this.retryNow());
    window.addEventListener("offline", () => this.drop());
  }

  start() {
    this.closedByUs = false;
    this.open();
  }

  stop() {
    this.closedByUs = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.pingTimer);
    for (const ws of [this.ws, this.next, this.retiring]) if (ws) ws.close();
    this.ws = this.next = this.retiring = null;
  }

  setStatus(status, info = {}) {
    this.status = status;
    this.onStatus && this.onStatus(status, info);
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const node = this.target ? `?node=${encodeURIComponent(this.target)}` : "";
    return `${scheme}://${location.host}/ws${node}`;
  }

  open() {
    clearTimeout(this.retryTimer);
    if (!session.token) return;
    this.ws = this.socket();
    this.setStatus(this.attempt ? "reconnecting" : "connecting");
  }

  socket() {
    const ws = new WebSocket(this.url());
    ws.welcomed = false;
    ws.onopen = () => {
      ws.send(JSON.stringify({ type: "auth", id: "auth", token: session.token })); // answered by welcome
      this.lastPong = Date.now();
      clearInterval(this.pingTimer);
      this.pingTimer = setInterval(() => this.heartbeat(), 5000);
    };
    ws.onmessage = (event) => {
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        return;
      }
      if (ws === this.retiring && msg.type !== "ack" && msg.type !== "error") return; // the new one has them
      this.lastPong = Date.now();
      if (msg.type === "ack" || msg.type === "error") {
        const waiter = this.pending.get(msg.id);
        if (waiter) {
          this.pending.delete(msg.id);
          if (msg.type === "ack") waiter.resolve(msg);
          else waiter.reject(new RequestError(msg));
          if (ws === this.ws && this.retiring && waiter.type === "watch") this.retire(); // rejoined here
        }
        return;
      }
      if (msg.type === "welcome") {
        ws.welcomed = true;
        if (ws === this.next) this.takeOver(ws);
        this.node = msg.node || null;
        this.attempt = 0; // backoff starts again only once the server has let us in (not at 4429)
        this.setStatus("online");
      }
      this.onMessage && this.onMessage(msg);
    };
    ws.onclose = (event) => {
      if (!this.closedByUs) this.rejectSent(ws); // (stop() leaves them unanswered, as it always did)
      if (ws === this.next) { // the owner's node did not let us in: stay where we are
        this.next = null;
        this.target = null;
        return;
      }
      if (ws === this.retiring) this.retiring = null;
      if (this.ws !== ws) return;
      this.ws = null;
      clearInterval(this.pingTimer);
      if (!ws.welcomed) this.target = null; // the hinted node is gone: the front chooses again
      if (this.closedByUs) return;
      if (event.code === 4401) {
        this.setStatus("unauthorized");
        return;
      }
      this.scheduleRetry();
    };
    return ws;
  }

  /** A socket closed: the requests sent on it will not be answered. */
  rejectSent(ws) {
    for (const [id, waiter] of this.pending) {
      if (waiter.ws !== ws) continue;
      this.pending.delete(id);
      waiter.reject(new RequestError({ code: "offline", message: "offline" }));
    }
  }

  /** An answer named the table's owner (data.node): connect there, once per table and owner. */
  hint(table, node) {
    if (!node || !this.node || node === this.node || this.next || this.closedByUs) return;
    const key = `${table}@${node}`;
    if (this.followed.has(key)) return;
    this.followed.add(key);
    this.target = node;
    this.next = this.socket();
  }

  /** The owner's node let us in: its socket is the connection now; the old one stays until the
   * screen has rejoined its table here (or 10 s), so that the seat never goes offline meanwhile. */
  takeOver(ws) {
    this.next = null;
    if (this.retiring) this.retire();
    this.retiring = this.ws;
    this.ws = ws;
    clearTimeout(this.retireTimer);
    this.retireTimer = setTimeout(() => this.retire(), 10000);
  }

  retire() {
    clearTimeout(this.retireTimer);
    const old = this.retiring;
    if (old && ![...this.pending.values()].some((w) => w.ws === old)) {
      this.retiring = null;
      old.close();
    } else if (old) {
      this.retireTimer = setTimeout(() => this.retire(), 1000); // its requests answered first
    }
  }

  /** Backoff 0.5 s, 1 s, 2 s … up to 10 s, with jitter; the banner counts down. */
  scheduleRetry() {
    const delay = Math.min(10, 0.5 * 2 ** this.attempt) * (0.8 + Math.random() * 0.4);
    this.attempt++;
    const until = Date.now() + delay * 1000;
    this.setStatus("offline", { until });
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.open(), delay * 1000);
  }

  retryNow() {
    if (this.ws || this.closedByUs || !session.token) return;
    this.attempt = 0;
    this.open();
  }

  /** Close the socket as if the network dropped (the page reconnects by itself). */
  drop() {
    if (this.ws) {
      const ws = this.ws;
      ws.close();
      ws.onclose({ code: 1006 });
    }
  }

  heartbeat() {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return;
    if (Date.now() - this.lastPong > 12000) {
      this.drop();
      return;
    }
    this.request("ping").catch(() => {});
  }

  /**
   * Send a request; resolves with its ack, rejects with a RequestError. A refusal `moving` (on a
   * cluster, the table is between two nodes: its node died, or it handed the table over) is sent
   * again after 0.25, 0.5, 1, 2, 2 … s, for up to 15 s, so a failover is a pause, not an error.
   */
  async request(type, fields = {}) {
    const since = Date.now();
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.once(type, fields);
      } catch (error) {
        if (error.code !== "moving" || Date.now() - since > MOVING_PATIENCE_MS) throw error;
        await new Promise((r) => setTimeout(r, MOVING_RETRY_MS[Math.min(attempt, MOVING_RETRY_MS.length - 1)]));
      }
    }
  }

  /** One request, answered once (no retry). */
  once(type, fields) {
    return new Promise((resolve, reject) => {
      const ws = this.ws;
      if (!ws || ws.readyState !== WebSocket.OPEN) {
        reject(new RequestError({ code: "offline", message: "offline" }));
        return;
      }
      const id = `c${this.nextId++}`;
      const answered = (ack) => {
        resolve(ack);
        if (type === "watch" || type === "sit") this.hint(fields.table, ack.data && ack.data.node);
      };
      this.pending.set(id, { resolve: answered, reject, type, ws });
      ws.send(JSON.stringify({ type, id, ...fields }));
    });
  }

  get online() {
    return Boolean(this.ws && this.ws.readyState === WebSocket.OPEN && this.status === "online");
  }
}

// ---- every error a player can meet, in the page's language: the server sends a `code` (and for an
// illegal move the `rule`, for a form the fields at fault); the words are the page's (i18n.js).

/** The words for one field that failed the server's checks (FastAPI's 422 list: loc, type). */
function fieldText(item) {
  const loc = Array.isArray(item.loc) ? item.loc : [];
  const name = String(loc[loc.length - 1] ?? "");
  const field = hasText(`field_${name}`) ? t(`field_${name}`) : name;
  const ctx = item.ctx || {};
  const params = { field, min: ctx.min_length ?? "", max: ctx.max_length ?? "" };
  const key = `input_${item.type}`;
  return t(hasText(key) ? key : "input_other", params);
}

/**
 * What to tell the player: `error` is {code, rule?, fields?} — a WebSocket error, an HTTP error's
 * detail, or {status} alone for an answer without a code.
 */
export function errorText(error) {
  const { code, rule, fields, status } = error || {};
  if (code === "illegal_move" && rule && hasText(`illegal_${rule}`)) return t(`illegal_${rule}`);
  if (code === "invalid_input" && Array.isArray(fields) && fields.length) {
    return fields.map(fieldText).join(getLang() === "zh" ? "；" : "; ");
  }
  if (code && hasText(`err_${code}`)) return t(`err_${code}`);
  if (status && hasText(`err_http_${status}`)) return t(`err_http_${status}`);
  if (status >= 500) return t("err_http_500");
  return t("err_unknown");
}
