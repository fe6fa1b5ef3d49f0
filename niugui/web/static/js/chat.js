// Quick chat: a fixed list of phrases and emotes (docs/protocol.md `chat`; no free text), the panel
// that sends them, the bubbles shown at the sender's seat for a few seconds, and the seats you mute
// (remembered on this device, per table).

import { button, el } from "./dom.js";
import { tt } from "./tablestrings.js";

export const PHRASES = ["hurry", "nice", "together", "sorry", "thanks", "well_played", "oops", "again"];
export const EMOTES = ["emote_smile", "emote_laugh", "emote_cry", "emote_angry", "emote_thumbs", "emote_flower"];
export const BUBBLE_MS = 3500;

const muteKey = (table) => `niugui.mute.${table}`;

/** The seats muted at a table on this device. */
export function mutedSeats(table) {
  try {
    const seats = JSON.parse(localStorage.getItem(muteKey(table)) || "[]");
    return new Set(Array.isArray(seats) ? seats.filter((s) => Number.isInteger(s)) : []);
  } catch {
    return new Set();
  }
}

export function setMuted(table, seat, muted) {
  const seats = mutedSeats(table);
  if (muted) seats.add(seat);
  else seats.delete(seat);
  localStorage.setItem(muteKey(table), JSON.stringify([...seats]));
}

/**
 * The quick-chat panel. opts: {canSend, onSend(phrase), others: [{seat, name}], table, onMuteChange()}
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
    const muted = mutedSeats(opts.table);
    for (const { seat, name } of opts.others) {
      const on = muted.has(seat);
      const b = button(`chat-btn mute${on ? " on" : ""}`, `${on ? "✕ " : ""}${name}`, "chat-mute", () => {
        setMuted(opts.table, seat, !on);
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
