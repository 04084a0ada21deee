// The plain-JS loops a user could write instead of assignor's batch calls, shared by
// bench/runtime-shapes.bench.mjs (the runtime table) and bench/string-batch.profile.mjs (issue 33's
// profiles). Plain JavaScript, so Node, Bun and Deno run the same file.

/** The partition count of every contender: a constant, as in a user's own loop. */
export const PARTITIONS = 1000;
export const SEED = 0x9747b28c | 0;
const M = 0x5bd1e995;
let buf = new Uint8Array(1024);
export function murmurBytes(b, start, len) {
  let h = SEED ^ len;
  const n4 = start + (len & ~3);
  let i = start;
  for (; i < n4; i += 4) {
    let k = b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24);
    k = Math.imul(k, M);
    k ^= k >>> 24;
    h = Math.imul(h, M) ^ Math.imul(k, M);
  }
  const r = len & 3;
  if (r === 3) h ^= b[i + 2] << 16;
  if (r >= 2) h ^= b[i + 1] << 8;
  if (r >= 1) h = Math.imul(h ^ b[i], M);
  h ^= h >>> 13;
  h = Math.imul(h, M);
  return h ^ (h >>> 15);
}
/** charCodeAt into a reused buffer as Java's UTF-8 (unpaired surrogates as '?'). */
function encode(s) {
  const n = s.length;
  if (buf.length < n * 3) buf = new Uint8Array(n * 3);
  const b = buf;
  let p = 0;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) b[p++] = c;
    else if (c < 0x800) {
      b[p++] = 0xc0 | (c >> 6);
      b[p++] = 0x80 | (c & 0x3f);
    } else if (c < 0xd800 || c > 0xdfff) {
      b[p++] = 0xe0 | (c >> 12);
      b[p++] = 0x80 | ((c >> 6) & 0x3f);
      b[p++] = 0x80 | (c & 0x3f);
    } else {
      const d = i + 1 < n ? s.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
        const cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        b[p++] = 0xf0 | (cp >> 18);
        b[p++] = 0x80 | ((cp >> 12) & 0x3f);
        b[p++] = 0x80 | ((cp >> 6) & 0x3f);
        b[p++] = 0x80 | (cp & 0x3f);
        i++;
      } else b[p++] = 0x3f;
    }
  }
  return p;
}
/** murmur2 straight from charCodeAt while the key is ASCII; other keys through the buffer. */
function murmurString(s) {
  const len = s.length;
  let h = SEED ^ len;
  const n4 = len & ~3;
  let seen = 0;
  let i = 0;
  for (; i < n4; i += 4) {
    const a = s.charCodeAt(i), b = s.charCodeAt(i + 1), c = s.charCodeAt(i + 2), d = s.charCodeAt(i + 3);
    seen |= a | b | c | d;
    let k = a | (b << 8) | (c << 16) | (d << 24);
    k = Math.imul(k, M);
    k ^= k >>> 24;
    h = Math.imul(h, M) ^ Math.imul(k, M);
  }
  const r = len & 3;
  if (r !== 0) {
    let t = s.charCodeAt(i);
    seen |= t;
    if (r >= 2) {
      const b = s.charCodeAt(i + 1);
      seen |= b;
      t |= b << 8;
    }
    if (r === 3) {
      const c = s.charCodeAt(i + 2);
      seen |= c;
      t |= c << 16;
    }
    h = Math.imul(h ^ t, M);
  }
  if (seen >= 0x80) return murmurBytes(buf, 0, encode(s));
  h ^= h >>> 13;
  h = Math.imul(h, M);
  return h ^ (h >>> 15);
}
export const mix = (h, k) => {
  k = Math.imul(k, M);
  k ^= k >>> 24;
  return Math.imul(h, M) ^ Math.imul(k, M);
};
export const fin = (h) => {
  h ^= h >>> 13;
  h = Math.imul(h, M);
  return h ^ (h >>> 15);
};

/** The loop a user must write to be Java-exact (issue 33's baseline): murmur2 straight from
 * charCodeAt, ORing every unit into a flag; a key with a unit >= 0x80 is hashed over Java's UTF-8
 * bytes, through TextEncoder when it is well-formed (its bytes are Java's then), else through the
 * charCodeAt encoder above (an unpaired surrogate is '?'). */
const utf8 = new TextEncoder();
function javaExact(s) {
  const len = s.length;
  let h = SEED ^ len;
  const n4 = len & ~3;
  let seen = 0;
  let i = 0;
  for (; i < n4; i += 4) {
    const a = s.charCodeAt(i), b = s.charCodeAt(i + 1), c = s.charCodeAt(i + 2), d = s.charCodeAt(i + 3);
    seen |= a | b | c | d;
    let k = a | (b << 8) | (c << 16) | (d << 24);
    k = Math.imul(k, M);
    k ^= k >>> 24;
    h = Math.imul(h, M) ^ Math.imul(k, M);
  }
  const r = len & 3;
  if (r !== 0) {
    let t = s.charCodeAt(i);
    seen |= t;
    if (r >= 2) {
      const b = s.charCodeAt(i + 1);
      seen |= b;
      t |= b << 8;
    }
    if (r === 3) {
      const c = s.charCodeAt(i + 2);
      seen |= c;
      t |= c << 16;
    }
    h = Math.imul(h ^ t, M);
  }
  if (seen >= 0x80) {
    if (buf.length < len * 3) buf = new Uint8Array(len * 3);
    return murmurBytes(buf, 0, s.isWellFormed() ? utf8.encodeInto(s, buf).written : encode(s));
  }
  h ^= h >>> 13;
  h = Math.imul(h, M);
  return h ^ (h >>> 15);
}

/** The Java-exact loop's name in the tables: every ratio is also given against it. */
export const JAVA_EXACT = 'plain JS: Java-exact loop (charCodeAt murmur2 while ASCII, else Java\'s UTF-8 through TextEncoder)';

/** The Java-exact loop over a batch (PARTITIONS is a constant here, as in a user's loop). */
export function javaExactLoop(keys) {
  const out = new Int32Array(keys.length);
  for (let i = 0; i < keys.length; i++) out[i] = (javaExact(keys[i]) & 0x7fffffff) % PARTITIONS;
  return out;
}

export const plainStrings = {
  [JAVA_EXACT]: javaExactLoop,
  'plain JS: murmur2 straight from charCodeAt': (keys) => {
    const out = new Int32Array(keys.length);
    for (let i = 0; i < keys.length; i++) out[i] = (murmurString(keys[i]) & 0x7fffffff) % PARTITIONS;
    return out;
  },
  'plain JS: charCodeAt into a buffer + murmur2': (keys) => {
    const out = new Int32Array(keys.length);
    for (let i = 0; i < keys.length; i++) out[i] = (murmurBytes(buf, 0, encode(keys[i])) & 0x7fffffff) % PARTITIONS;
    return out;
  },
  // Java's bytes for every string: encodeInto only where no unpaired surrogate makes it differ.
  'plain JS: encodeInto if well-formed, else charCodeAt into a buffer, + murmur2 (Java-exact)': (keys) => {
    const enc = new TextEncoder();
    const out = new Int32Array(keys.length);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
      if (buf.length < k.length * 3) buf = new Uint8Array(k.length * 3);
      const n = k.isWellFormed() ? enc.encodeInto(k, buf).written : encode(k);
      out[i] = (murmurBytes(buf, 0, n) & 0x7fffffff) % PARTITIONS;
    }
    return out;
  },
  // Not Java's bytes for a string with an unpaired surrogate (U+FFFD where Java writes '?'); these
  // datasets have none, so it gives the same partitions here and counts as a contender.
  'plain JS: TextEncoder.encodeInto + murmur2 (WHATWG bytes, equal here: no lone surrogates)': (keys) => {
    const enc = new TextEncoder();
    const out = new Int32Array(keys.length);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
      if (buf.length < k.length * 3) buf = new Uint8Array(k.length * 3);
      out[i] = (murmurBytes(buf, 0, enc.encodeInto(k, buf).written) & 0x7fffffff) % PARTITIONS;
    }
    return out;
  },
};
