// The fairness proof (docs/protocol.md "Fair deal"): commitment = hex(SHA-256(UTF-8(statement))) for
// scheme 2 (the statement is revealed with the salt; the page checks the hash, not the seal over the
// actions, which `niugui verify` checks), hex(SHA-256(UTF-8(salt_hex + ":" + ",".join(deck)))) for
// scheme 1. Checked in the browser with crypto.subtle (a pure-JS SHA-256 where crypto.subtle is
// missing, e.g. a page opened over plain http on a LAN address), then the deck is dealt (R9) and
// compared with the hands that were played.

/** Hands dealt from a deck in drawing order (R9): first drawer first, then clockwise (R7). The check
 * deals here, in the page, so that it trusts nothing but the revealed deck. */
export function dealHands(deck, firstDrawer) {
  const hands = [[], [], [], []];
  deck.forEach((code, i) => hands[(((firstDrawer - i) % 4) + 4) % 4].push(code));
  return hands;
}

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

/** SHA-256 in plain JS (FIPS 180-4), for pages without crypto.subtle. Returns lowercase hex. */
export function sha256HexFallback(bytes) {
  const h = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const length = bytes.length;
  const padded = new Uint8Array(Math.ceil((length + 9) / 64) * 64);
  padded.set(bytes);
  padded[length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor((length * 8) / 2 ** 32));
  view.setUint32(padded.length - 4, (length * 8) >>> 0);
  const w = new Uint32Array(64);
  const rotr = (x, n) => (x >>> n) | (x << (32 - n));
  for (let off = 0; off < padded.length; off += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(off + i * 4);
    for (let i = 16; i < 64; i++) {
      const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, hh] = h;
    for (let i = 0; i < 64; i++) {
      const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) >>> 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) >>> 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) >>> 0;
    }
    const add = [a, b, c, d, e, f, g, hh];
    for (let i = 0; i < 8; i++) h[i] = (h[i] + add[i]) >>> 0;
  }
  return [...h].map((x) => x.toString(16).padStart(8, "0")).join("");
}

/** Lowercase hex SHA-256 of a UTF-8 string. */
export async function sha256Hex(text) {
  const bytes = new TextEncoder().encode(text);
  if (globalThis.crypto && crypto.subtle) {
    const digest = await crypto.subtle.digest("SHA-256", bytes);
    return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
  }
  return sha256HexFallback(bytes);
}

/** The string a scheme-1 commitment hashes (games dealt before scheme 2). */
export const commitmentInput = (salt, deck) => `${salt}:${deck.join(",")}`;

/** The string a proof's commitment hashes: scheme 2's statement (canonical JSON of the deal and
 * seating, docs/protocol.md "Fair deal"), else scheme 1's salt:deck. */
export const proofInput = (proof) => proof.statement || commitmentInput(proof.salt, proof.deck);

/** Whether a scheme-2 statement is about this deck, salt and first drawer (scheme 1: nothing to check). */
function statementAgrees(proof, firstDrawer) {
  if (!proof.statement) return true;
  try {
    const st = JSON.parse(proof.statement);
    const drawerOk = firstDrawer === undefined || firstDrawer === null || st.first_drawer === firstDrawer;
    return st.salt === proof.salt && st.deck.join(",") === proof.deck.join(",") && drawerOk;
  } catch {
    return false;
  }
}

/**
 * Check a proof {commitment, salt, deck, statement?, published?} against the dealt hands and first
 * drawer of the game, and against the commitment published at the deal (``published``, when seen).
 * Returns {ok, hash, hashOk, dealOk, publishedOk}.
 */
export async function verifyProof(proof, dealt, firstDrawer) {
  const hash = await sha256Hex(proofInput(proof));
  // proof.published: the commitment this page saw at the deal, before any action. A server that
  // chose the deal afterwards could reveal a matching commitment at the end, never the published one.
  const publishedOk = !proof.published || String(proof.published).toLowerCase() === String(proof.commitment).toLowerCase();
  const hashOk = hash === String(proof.commitment).toLowerCase() && statementAgrees(proof, firstDrawer) && publishedOk;
  let dealOk = true;
  if (dealt && firstDrawer !== undefined && firstDrawer !== null) {
    const hands = dealHands(proof.deck, firstDrawer);
    dealOk = hands.every((h, s) => h.length === dealt[s].length && h.every((c) => dealt[s].includes(c)));
  }
  return { ok: hashOk && dealOk, hash, hashOk, dealOk, publishedOk };
}
