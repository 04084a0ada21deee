// Which path a batch of string keys takes, chosen per runtime at load time and per batch by the
// shape of its first keys. Both paths give the same partitions (test/hashing/string-path.test.ts
// runs each on every runtime of the matrix); only their speed differs, and it differs by engine:
//  - V8 (Node, Deno, Chromium): WASM wins once keys are long enough that copying them out of V8
//    is paid back by the kernel (UUIDs: 2.2x); for short ASCII keys such as `user-<7 digits>`
//    the plain loop over charCodeAt is as fast, and for keys that are not ASCII it is faster, since
//    WASM then needs each key's UTF-16 units copied and encoded in the kernel.
//  - JavaScriptCore (Bun, Safari): every WASM string path lost to the plain loop, by 2-2.8x.
// The figures behind these choices: bench/runtime-shapes.bench.mjs, table in bench/RESULTS.md.

/** `js`: murmur2 from charCodeAt per key (single-key.ts); `wasm`: the kernel over runs of bytes. */
export type StringPath = 'js' | 'wasm';

export interface StringPolicy {
  /** The JS engine, as detected. */
  engine: 'v8' | 'jsc' | 'other';
  /** ASCII keys whose mean length (UTF-16 units) is at most this go the JS way. */
  asciiJsMaxUnits: number;
  /** Where keys that are not all ASCII go. */
  nonAscii: StringPath;
}

/** How many leading string keys the choice looks at: enough for a mean, too few to cost. */
const SAMPLE = 16;

declare const Bun: unknown;
declare const navigator: { vendor?: string } | undefined;

function detectEngine(): StringPolicy['engine'] {
  if (typeof Bun !== 'undefined') return 'jsc';
  if (typeof navigator !== 'undefined' && navigator?.vendor === 'Apple Computer, Inc.') return 'jsc';
  // V8 alone has Error.captureStackTrace together with Error.stackTraceLimit as a number by default.
  const E = Error as unknown as { captureStackTrace?: unknown; stackTraceLimit?: unknown };
  if (typeof E.captureStackTrace === 'function' && typeof E.stackTraceLimit === 'number' && !('Bun' in globalThis)) return 'v8';
  return 'other';
}

/** The policy for an engine (exported for the tests, which check each engine's policy). */
export function policyFor(engine: StringPolicy['engine']): StringPolicy {
  if (engine === 'jsc') return { engine, asciiJsMaxUnits: Infinity, nonAscii: 'js' };
  return { engine, asciiJsMaxUnits: 16, nonAscii: 'js' };
}

export const STRING_POLICY: StringPolicy = policyFor(detectEngine());

/**
 * The path for this batch under `policy`: from the first SAMPLE string keys, their mean length and
 * whether any is not ASCII. A batch whose first keys are byte keys goes to WASM (as do the rest).
 */
export function stringPathOf(keys: readonly unknown[], policy: StringPolicy = STRING_POLICY): StringPath {
  if (policy.asciiJsMaxUnits === Infinity && policy.nonAscii === 'js') return 'js';
  let seen = 0;
  let units = 0;
  let or = 0;
  for (let i = 0; i < keys.length && seen < SAMPLE; i++) {
    const k = keys[i];
    if (typeof k === 'string') {
      seen++;
      units += k.length;
      for (let j = 0; j < k.length; j++) or |= k.charCodeAt(j);
    } else if (k !== null && k !== undefined) return 'wasm';
  }
  if (seen === 0) return 'wasm';
  if (or >= 0x80) return policy.nonAscii;
  return units / seen <= policy.asciiJsMaxUnits ? 'js' : 'wasm';
}
