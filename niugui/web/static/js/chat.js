// Quick chat: a fixed list of phrases and emotes (docs/protocol.md `chat`; no free text), the panel
// that sends them, the bubbles shown at the sender's seat for a few seconds, and the players you mute
// (kept with your account on the server, so on every device: GET/PUT/DELETE /api/me/mutes; issue 33).

import { button, el } from "./dom.js";
import { api } from "./net.js";
import { tt } from "./tablestrings.js";

export const PHRASES = ["hurry", "nice", "together", "sorry", "thanks", "well_played", "oops", "again"];
export const EMOTES = ["emote_smile", "emote_laugh", "emote_cry", "emote_angry", "emote_thumbs", "emote_flower"];
export const BUBBLE_MS = 3500;

let mutedAccounts = new Set();

/** Read whom your account mutes (once per table screen). The list is emptied first, so another
 * account signed in on this page never hears with the last one's mutes; a failure leaves it empty. */
export async function loadMutes() {
  mutedAccounts = new Set();
  try {
    mutedAccounts = new Set((await api("GET", "/api/me/mutes")).muted);
  } catch {
    /* offline or signed out: nobody muted until the next read */
  }
}

/** Is the player in this seat one your account mutes? */
export function mutedSeat(st, seat) {
  const player = st && st.seats[seat] && st.seats[seat].player;
  return Boolean(player && mutedAccounts.has(player.id));
}

async function setMuted(accountId, muted) {
  const answer = await api(muted ? "PUT" : "DELETE", `/api/me/mutes/${encodeURIComponent(accountId)}`);
  mutedAccounts = new Set(answer.muted);
}

/**
 * The quick-chat panel. opts: {canSend, onSend(phrase), others: [{seat, name, id}], onMuteChange()}
 */
export function chatPanel(opts) {
  const box = el("div", "chat-panel");
  box.dataset.role = "chat-panel";
  box.setAttribute("role", "dialog");
  box.setAttribute("aria-label", tt("chat_title"));
  if (opts.canSend) {
    const phrases = el("div", "phrases");
    for (const id of PHRASES) {
      const b = button("chat-btn", tt(`phrase_${id}`), "chat-phrase", () => opts.onSend(id));
      b.dataset.phrase = id;
      phrases.append(b);
    }
    const emotes = el("div", "emotes");
    for (const id of EMOTES) {
      const b = button("chat-btn emote", tt(`phrase_${id}`), "chat-phrase", () => opts.onSend(id));
      b.dataset.phrase = id;
      b.setAttribute("aria-label", id.replace("emote_", ""));
      emotes.append(b);
    }
    box.append(phrases, emotes);
  }
  if (opts.others.length) {
    const mutes = el("div", "mutes");
    mutes.append(el("span", "", tt("chat_muted_seats")));
    for (const { seat, name, id } of opts.others) {
      const on = mutedAccounts.has(id);
      const b = button(`chat-btn mute${on ? " on" : ""}`, `${on ? "✕ " : ""}${name}`, "chat-mute", async () => {
        try {
          await setMuted(id, !on);
        } catch {
          return; /* not saved: the button stays as it was */
        }
        opts.onMuteChange();
      });
      b.dataset.seat = String(seat);
      b.setAttribute("aria-pressed", String(on));
      b.title = on ? tt("chat_unmute") : tt("chat_mute");
      mutes.append(b);
    }
    box.append(mutes);
  }
  return box;
}

/** A bubble with a phrase, for the sender's seat. */
export function bubble(seat, phrase, name) {
  const b = el("div", `chat-bubble${phrase.startsWith("emote_") ? " emote" : ""}`, tt(`phrase_${phrase}`));
  b.dataset.role = "chat-bubble";
  b.dataset.seat = String(seat);
  b.dataset.phrase = phrase;
  b.setAttribute("role", "status");
  b.setAttribute("aria-label", tt("chat_said", { name, text: tt(`phrase_${phrase}`) }));
  return b;
}
