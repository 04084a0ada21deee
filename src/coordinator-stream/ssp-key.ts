import { INT32_MAX } from '../basics.js';
// The SSP key of a set-task-partition-assignment message, built and parsed here only. Samza (2022+)
// writes it with Jackson from a HashMap, whose iteration order puts the fields as system, partition,
// stream, keyBucket: {"system":S,"partition":P,"stream":T,"keyBucket":B}.

/** One stream's keys around the partition and the key bucket: head + partition + tail + bucket + '}' (for writers of many keys). */
export function sspKeyParts(system: string, stream: string): { head: string; tail: string } {
  return { head: `{"system":${JSON.stringify(system)},"partition":`, tail: `,"stream":${JSON.stringify(stream)},"keyBucket":` };
}

/** The canonical SSP key. */
export function canonicalSspKey(system: string, stream: string, partition: number, bucket: number): string {
  // (The same bytes as sspKeyParts around the numbers, in one template: no object per key.)
  return `{"system":${JSON.stringify(system)},"partition":${partition},"stream":${JSON.stringify(stream)},"keyBucket":${bucket}}`;
}

// JSON strings cannot hold an unescaped quote, so this matches the canonical form exactly.
const CANONICAL = /^\{"system":("(?:[^"\\]|\\.)*"),"partition":(\d+),"stream":("(?:[^"\\]|\\.)*"),"keyBucket":(-?\d+)\}$/;

function jsonString(quoted: string): string | undefined {
  if (!quoted.includes('\\')) return quoted.slice(1, -1);
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return undefined;
  }
}

/**
 * Parses a key in exactly the canonical form (the bytes canonicalSspKey writes); undefined for any
 * other string (an older form, other field order, other escapes), which readers parse the slow way.
 */
export function parseCanonical(key: string): { system: string; stream: string; partition: number; bucket: number } | undefined {
  const m = CANONICAL.exec(key);
  if (m === null) return undefined;
  const partition = Number(m[2]);
  const bucket = Number(m[4]);
  if (partition > INT32_MAX || bucket < -1 || bucket > INT32_MAX) return undefined;
  const system = jsonString(m[1]!);
  const stream = jsonString(m[3]!);
  // Names with lone surrogates are not canonical: the store's columns keep names as UTF-8.
  if (system === undefined || stream === undefined || !system.isWellFormed() || !stream.isWellFormed()) return undefined;
  // Only the exact bytes canonicalSspKey would produce (e.g. "\u0041" for "A", or "01" for 1, are other keys).
  if (canonicalSspKey(system, stream, partition, bucket) !== key) return undefined;
  return { system, stream, partition, bucket };
}
