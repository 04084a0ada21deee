// Key movement when a hash-partitioned stream goes from B to C partitions while
// its task (or channel) set stays fixed at B slots. Shared by the Samza `base`
// mapper and the channel planner: one implementation of the arithmetic.
//
// A key with hash h sat in partition h mod B, owned by slot h mod B. After the
// change it sits in partition q = h mod C. The keys of q come from the slots
// t with t ≡ q (mod g), g = gcd(B, C), in equal shares (B/g slots each). So:
//  - when C is a multiple of B (g = B), slot q mod B already owns all of q's
//    keys: folding q onto q mod B moves nothing;
//  - otherwise the best any assignment can do keeps g/B of each partition's
//    keys, so a share of exactly 1 - g/B of all keys changes slot.
import { AssignorError, requireInt } from '../errors.js';
import { loadKernels, type EngineOptions } from '../engine/kernels.js';
import { formatPercent, INT32_MAX } from '../basics.js';


export function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

export interface ExpansionAnalysis {
  /** Slot count: the base partition count the task/channel set was created for. */
  base: number;
  /** The new partition count. */
  target: number;
  /** True when every key stays with its slot (target is a multiple of base). */
  keepsEveryKey: boolean;
  gcd: number;
  /** Share of keys that would change slot, as numerator/denominator (lowest terms) and as a number. */
  moved: { numerator: number; denominator: number };
  movedShare: number;
  /** The partition counts nearest to target that keep every key: multiples of base around it. */
  nearestSafe: number[];
  /** One sentence for people. */
  summary: string;
}

export function analyzeExpansion(base: number, target: number): ExpansionAnalysis {
  requireInt(base, 1, INT32_MAX, 'base partition count', 'base');
  requireInt(target, 1, INT32_MAX, 'new partition count', 'target');
  const g = gcd(base, target);
  const keepsEveryKey = g === base;
  const numerator = (base - g) / g;
  const denominator = base / g;
  const below = Math.floor(target / base) * base;
  const nearestSafe = keepsEveryKey ? [target] : [below, below + base].filter((c) => c >= base && c <= INT32_MAX);
  const summary = keepsEveryKey
    ? `${base} -> ${target}: ${target} is a multiple of ${base}, so partition p joins the slot of p mod ${base} and every key stays with its slot`
    : `${base} -> ${target}: ${target} is not a multiple of ${base}; ${numerator}/${denominator} of keys (${formatPercent(numerator, { of: denominator })}) would change slot ` +
      `(1 - gcd(${base}, ${target})/${base}); partition counts that keep every key: ${nearestSafe.join(' or ')}`;
  return { base, target, keepsEveryKey, gcd: g, moved: { numerator, denominator }, movedShare: numerator / denominator, nearestSafe, summary };
}

/** Throws the refusal the analysis describes, unless the target keeps every key. */
export function requireKeyPreserving(base: number, target: number, what = 'stream'): ExpansionAnalysis {
  const a = analyzeExpansion(base, target);
  if (!a.keepsEveryKey) {
    throw new AssignorError('E_KEY_MOVEMENT', `cannot change ${what} from ${base} to ${target} partitions without moving keys: ${a.summary}; pass allowKeyMovement to accept it`);
  }
  return a;
}

/**
 * Folds many (stream, partition) pairs at once: out[i] = partitions[i] mod bases[streams[i]].
 * Runs in the selected engine (WASM by default).
 */
export function foldPartitions(streams: Int32Array, partitions: Int32Array, bases: Int32Array, options?: EngineOptions): Int32Array {
  if (streams.length !== partitions.length) {
    throw new AssignorError('E_FOLD_INPUT', `streams has ${streams.length} entries but partitions has ${partitions.length}`, 'streams');
  }
  for (let s = 0; s < bases.length; s++) requireInt(bases[s], 1, INT32_MAX, 'base partition count', `bases[${s}]`);
  const r = loadKernels(options).foldPartitions(streams, partitions, bases);
  if (r instanceof Int32Array) return r;
  const i = r.bad;
  if (partitions[i]! < 0) throw new AssignorError('E_FOLD_INPUT', `partition ${partitions[i]} is negative`, `partitions[${i}]`);
  throw new AssignorError('E_FOLD_INPUT', `stream index ${streams[i]} has no base count`, `streams[${i}]`);
}

export interface Reassignment {
  /** slotOf[q] = slot (task or channel index in [0, base)) of new partition q. */
  slotOf: Int32Array;
  analysis: ExpansionAnalysis;
}

/**
 * The explicit key-moving option for a target that is not a multiple of base:
 * partitions below min(base, target) keep their slot; every other partition q
 * goes to one of the slots that already own some of its keys (t ≡ q mod g),
 * the one with the fewest partitions so far (ties: lowest slot). This keeps the
 * theoretical best share, g/base, of every partition's keys in place.
 */
export function reassignWithKeyMovement(base: number, target: number): Reassignment {
  const analysis = analyzeExpansion(base, target);
  const g = analysis.gcd;
  const slotOf = new Int32Array(target);
  const kept = Math.min(base, target);
  for (let q = 0; q < kept; q++) {
    slotOf[q] = q;
  }
  // Candidates of q are r, r+g, r+2g, ... (r = q mod g). When target > base every
  // slot starts with one partition, so "fewest so far, lowest first" is a
  // round-robin over each residue class's candidates.
  const perClass = base / g;
  const cursor = new Int32Array(g);
  for (let q = kept; q < target; q++) {
    const r = q % g;
    const slot = r + g * (cursor[r]! % perClass);
    cursor[r]!++;
    slotOf[q] = slot;
  }
  return { slotOf, analysis };
}
