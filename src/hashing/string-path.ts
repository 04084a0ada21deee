// Which path a batch of string keys takes, chosen per runtime at load time and per batch by the
// shape of its first keys. Every path gives the same partitions (test/hashing/string-path.test.ts
// runs each on every runtime of the matrix); only their speed differs, and it differs by runtime
// (bench/runtime-shapes.bench.mjs; the table is in bench/RESULTS.md, "Per runtime"):
//  - V8 (Node, Deno, Chromium): WASM wins once keys are long enough that copying them out of V8
//    pays for itself: UUIDs 2.0-2.6x the Java-exact loop, 12-character user ids 1.2-1.5x, 8
//    characters 0.9-1.3x; at 4 characters the plain loop over charCodeAt wins by 1.2-1.4x
//    (1M keys, interleaved, issue 33), so ASCII keys of at most 7 units on average stay in JS.
//  - Keys that are not ASCII: in WASM their UTF-16 units are copied (Node's Buffer does it
//    natively) and encoded in the kernel, which beats encoding in JS by about 1.5x on Node. Browsers
//    have no Buffer, and Deno's copies slowly: there the copy loses to encoding in JS.
//  - JavaScriptCore (Bun, Safari): the WASM string paths lose to the plain loop (by 2-3x for
//    non-ASCII keys), and TextEncoder.encodeInto is fast, so every string batch stays in JS and a
//    well-formed non-ASCII key is encoded by encodeInto (for a string with no unpaired surrogate its
//    bytes are Java's too).

/**
 * `js`: murmur2 per key from its UTF-16 units while it is ASCII (single-key.ts); `js-encode`: every
 * key encoded first, with no ASCII pass (by encodeInto when well-formed, where that encoder is
 * fast), for batches that are not ASCII; `wasm`: the kernel over runs of bytes.
 */
export type StringPath = 'js' | 'js-encode' | 'wasm';

export interface StringPolicy {
  /** The JS engine, as detected: V8 with Node's Buffer, V8 without a fast one (Deno, Chromium), JavaScriptCore. */
  engine: 'v8-node' | 'v8' | 'jsc';
  /** ASCII keys whose mean length (UTF-16 units) is at most this go the JS way. */
  asciiJsMaxUnits: number;
  /** Where keys that are not all ASCII go. */
  nonAscii: StringPath;
  /** In JS, encode a well-formed non-ASCII key with TextEncoder.encodeInto (else Java's encoder in JS). */
  encodeWellFormed: boolean;
}

/** How many leading string keys the choice looks at: enough for a mean, too few to cost. */
const SAMPLE = 16;

declare const Bun: unknown;
declare const navigator: { vendor?: string } | undefined;

declare const Deno: unknown;

function detectEngine(): StringPolicy['engine'] {
  if (typeof Bun !== 'undefined') return 'jsc';
  if (typeof navigator !== 'undefined' && navigator?.vendor === 'Apple Computer, Inc.') return 'jsc';
  // Deno has a Buffer too, but its UTF-16 copy is slow: the WASM non-ASCII path lost there (259 ms
  // against 211 in JS per million mixed keys).
  return typeof Buffer === 'function' && typeof Deno === 'undefined' ? 'v8-node' : 'v8';
}

/** The policy for an engine (exported for the tests, which check each engine's policy). */
export function policyFor(engine: StringPolicy['engine']): StringPolicy {
  if (engine === 'jsc') return { engine, asciiJsMaxUnits: Infinity, nonAscii: 'js', encodeWellFormed: typeof ''.isWellFormed === 'function' };
  return { engine, asciiJsMaxUnits: 7, nonAscii: engine === 'v8-node' ? 'wasm' : 'js', encodeWellFormed: false };
}

export const STRING_POLICY: StringPolicy = policyFor(detectEngine());

/**
 * The path for this batch under `policy`: from the first SAMPLE string keys, their mean length and
 * whether any is not ASCII. A batch whose first keys are byte keys goes to WASM (as do the rest).
 */
export function stringPathOf(keys: readonly unknown[], policy: StringPolicy = STRING_POLICY): StringPath {
  let seen = 0;
  let units = 0;
  let or = 0;
  for (let i = 0; i < keys.length && seen < SAMPLE; i++) {
    const k = keys[i];
    if (typeof k === 'string') {
      seen++;
      units += k.length;
      for (let j = 0; j < k.length; j++) or |= k.charCodeAt(j);
    } else if (k !== null && k !== undefined) return policy.asciiJsMaxUnits === Infinity ? 'js' : 'wasm';
  }
  if (seen === 0) return policy.asciiJsMaxUnits === Infinity ? 'js' : 'wasm';
  if (or >= 0x80) return policy.nonAscii === 'js' ? 'js-encode' : policy.nonAscii;
  return units / seen <= policy.asciiJsMaxUnits ? 'js' : 'wasm';
}
