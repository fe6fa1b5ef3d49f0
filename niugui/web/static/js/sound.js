// The table's sounds, synthesised with WebAudio (no sound files, nothing to license). Nothing plays
// before the page's first tap or key (browsers' autoplay rules); the mute switch is remembered.
// Test hook: window.niuguiSounds = {started, names}: every sound actually started, by name.

const KEY = "niugui.mute";
const hook = (window.niuguiSounds = window.niuguiSounds || { started: 0, names: [] });
let ctx = null;
let unlocked = false;

/** Notes of each sound: [frequency Hz, start s, length s, wave, gain]. */
const SOUNDS = {
  play: [[520, 0, 0.07, "triangle", 0.35]],
  five: [[440, 0, 0.08, "triangle", 0.3], [554, 0.07, 0.08, "triangle", 0.3], [659, 0.14, 0.14, "triangle", 0.35]],
  spade: [[196, 0, 0.18, "sawtooth", 0.18], [147, 0.12, 0.3, "square", 0.12]], // ♠3 / ♠2: the 牛鬼 shown
  pass: [[300, 0, 0.09, "sine", 0.25], [240, 0.08, 0.1, "sine", 0.2]],
  turn: [[880, 0, 0.09, "sine", 0.3], [1175, 0.1, 0.12, "sine", 0.3]],
  tick: [[1400, 0, 0.04, "square", 0.12]],
  out: [[523, 0, 0.1, "triangle", 0.3], [784, 0.09, 0.18, "triangle", 0.3]],
  win: [[523, 0, 0.12, "triangle", 0.3], [659, 0.12, 0.12, "triangle", 0.3], [784, 0.24, 0.12, "triangle", 0.3], [1047, 0.36, 0.3, "triangle", 0.35]],
  lose: [[392, 0, 0.18, "sine", 0.3], [330, 0.18, 0.18, "sine", 0.3], [262, 0.36, 0.36, "sine", 0.3]],
};
export const SOUND_NAMES = Object.keys(SOUNDS);

export const isMuted = () => localStorage.getItem(KEY) === "1";

export function setMuted(muted) {
  localStorage.setItem(KEY, muted ? "1" : "0");
}

function unlock() {
  if (unlocked) return;
  unlocked = true;
  const Ctx = window.AudioContext || window.webkitAudioContext;
  if (!Ctx) return;
  try {
    ctx = new Ctx();
    if (ctx.state === "suspended") ctx.resume();
  } catch {
    ctx = null;
  }
}
window.addEventListener("pointerdown", unlock, { capture: true, once: true });
window.addEventListener("keydown", unlock, { capture: true, once: true });

/** Start the sound `name` now (nothing when muted, before the first tap, or without WebAudio). */
export function playSound(name) {
  const notes = SOUNDS[name];
  if (!notes || !ctx || isMuted()) return false;
  const t0 = ctx.currentTime + 0.01;
  for (const [freq, at, len, wave, gain] of notes) {
    const osc = ctx.createOscillator();
    const amp = ctx.createGain();
    osc.type = wave;
    osc.frequency.value = freq;
    amp.gain.setValueAtTime(0.0001, t0 + at);
    amp.gain.exponentialRampToValueAtTime(gain, t0 + at + 0.01);
    amp.gain.exponentialRampToValueAtTime(0.0001, t0 + at + len);
    osc.connect(amp).connect(ctx.destination);
    osc.start(t0 + at);
    osc.stop(t0 + at + len + 0.02);
  }
  hook.started += 1;
  hook.names.push(name);
  return true;
}

/** The sound of a play: ♠3/♠2 first, then five-card plays, else the plain one. */
export function playSoundName(cards) {
  if (cards.includes("S3") || cards.includes("S2")) return "spade";
  return cards.length === 5 ? "five" : "play";
}
