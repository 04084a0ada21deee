// What a placement adds up to. Every standby copy counts, the ones the input
// already had (clients' `standby` lists) as well as the ones this call placed,
// so per task and in total: placed + existing + unplaced = asked for.
import { levelOf, lowerLevel, type Level, type TaskLevel } from './levels.js';
import type { StandbyPlacement } from './place.js';

export interface PlacementTotals {
  tasks: number;
  /** Copies the tasks should hold after this call (see askedFor). */
  askedFor: number;
  /** Every standby copy after placement: placed + existing. */
  standbys: number;
  /** New standbys placed by this call. */
  placed: number;
  /** Standbys the input already had. */
  existing: number;
  /** Asked for but impossible (every other client already holds a copy). */
  unplaced: number;
  /** Every standby copy (existing and placed) by level. */
  standbyLevels: Record<Level | 'untagged', number>;
  /** Tasks by the level of their worst copy ('none': no standby at all). */
  taskLevels: Record<TaskLevel, number>;
}

/**
 * Standby copies task t should hold after this call, existing ones included.
 * Balanced: numStandbys, or more when the input already has more (they are kept).
 * Kafka: Kafka's counters ignore existing copies and place numStandbys new ones on
 * top (one under the unguarded X04 do-while, for a task with an active owner).
 */
export function askedFor(pl: StandbyPlacement, t: number): number {
  const p = pl.flat.problem;
  const existing = p.holderStart[t + 1]! - p.holderStart[t]!;
  const S = pl.cluster.numStandbys;
  if (pl.mode === 'balanced') return Math.max(S, existing);
  return existing + kafkaNew(pl, t);
}

function kafkaNew(pl: StandbyPlacement, t: number): number {
  const S = pl.cluster.numStandbys;
  if (S > 0) return S;
  const x04 = pl.zeroStandbyGuard === false && pl.assignor === 'ClientTagAwareStandbyTaskAssignor';
  return x04 && pl.flat.problem.active[t]! >= 0 ? 1 : 0;
}

/**
 * The key mask of every existing copy, aligned with `problem.holders`: the keys on
 * which it differs from every copy before it (the active, then the task's
 * earlier existing copies in ProcessId order), as the kernels mask new standbys.
 */
export function existingMasks(pl: StandbyPlacement): Int32Array {
  const p = pl.flat.problem;
  const K = p.keys;
  const masks = new Int32Array(p.holders.length);
  if (K === 0) return masks;
  const usedStamp = new Int32Array(p.values);
  for (let t = 0; t < p.tasks; t++) {
    const stamp = t + 1;
    const mark = (c: number): void => {
      for (let k = 0; k < K; k++) {
        const v = p.clientValues[c * K + k]!;
        if (v >= 0) usedStamp[v] = stamp;
      }
    };
    if (p.active[t]! >= 0) mark(p.active[t]!);
    for (let h = p.holderStart[t]!; h < p.holderStart[t + 1]!; h++) {
      const c = p.holders[h]!;
      let m = 0;
      for (let k = 0; k < K; k++) {
        const v = p.clientValues[c * K + k]!;
        if (v >= 0 && usedStamp[v] !== stamp) m |= 1 << k;
      }
      masks[h] = m;
      mark(c);
    }
  }
  return masks;
}

export function totalsOf(pl: StandbyPlacement): PlacementTotals {
  const p = pl.flat.problem;
  const K = p.keys;
  const W = pl.width;
  const standbyLevels: Record<Level | 'untagged', number> = { absolute: 0, partial: 0, least: 0, untagged: 0 };
  const taskLevels: Record<TaskLevel, number> = { absolute: 0, partial: 0, least: 0, untagged: 0, none: 0 };
  const exMasks = existingMasks(pl);
  let asked = 0;
  let placed = 0;
  let existing = 0;
  let unplaced = 0;
  for (let t = 0; t < p.tasks; t++) {
    // Without keys a task is 'untagged' whatever it holds (as the report says).
    let level: TaskLevel = K === 0 ? 'untagged' : 'none';
    const count = (mask: number): void => {
      const l = levelOf(mask, K);
      standbyLevels[l]++;
      level = level === 'none' ? l : lowerLevel(level, l);
    };
    for (let h = p.holderStart[t]!; h < p.holderStart[t + 1]!; h++) count(exMasks[h]!);
    let n = 0;
    for (let j = 0; j < W; j++) {
      const s = t * W + j;
      if (pl.slots[s]! < 0) continue;
      n++;
      count(pl.masks[s]!);
    }
    const e = p.holderStart[t + 1]! - p.holderStart[t]!;
    const a = askedFor(pl, t);
    asked += a;
    placed += n;
    existing += e;
    unplaced += Math.max(0, a - e - n);
    taskLevels[level]++;
  }
  return { tasks: p.tasks, askedFor: asked, standbys: placed + existing, placed, existing, unplaced, standbyLevels, taskLevels };
}

/** How even a placement is: the most minus the fewest standbys on a client, and the same for load. */
export interface Spread {
  countSpread: number;
  loadSpread: number;
}

export function spreadOf(pl: StandbyPlacement): Spread {
  const p = pl.flat.problem;
  const C = p.clients;
  if (C === 0) return { countSpread: 0, loadSpread: 0 };
  const count = new Int32Array(C); // standbys per client, existing and placed
  const placed = new Int32Array(C);
  for (let h = 0; h < p.holders.length; h++) count[p.holders[h]!]!++;
  for (let s = 0; s < pl.slots.length; s++) {
    if (pl.slots[s]! >= 0) {
      count[pl.slots[s]!]!++;
      placed[pl.slots[s]!]!++;
    }
  }
  let minC = Infinity, maxC = -Infinity, minL = Infinity, maxL = -Infinity;
  for (let c = 0; c < C; c++) {
    const n = count[c]!;
    // p.load holds actives plus existing standbys; add the placed ones.
    const l = (p.load[c]! + placed[c]!) / p.capacity[c]!;
    minC = Math.min(minC, n);
    maxC = Math.max(maxC, n);
    minL = Math.min(minL, l);
    maxL = Math.max(maxL, l);
  }
  return { countSpread: maxC - minC, loadSpread: maxL - minL };
}

/** Per task, distinct values per key over all its copies (active, existing, standbys), key 0 first. */
export function taskSpreads(pl: StandbyPlacement): Int32Array {
  const p = pl.flat.problem;
  const K = p.keys;
  const W = pl.width;
  const out = new Int32Array(p.tasks * K);
  const seen = new Int32Array(p.values);
  for (let t = 0; t < p.tasks; t++) {
    const stamp = t + 1;
    const see = (c: number): void => {
      for (let k = 0; k < K; k++) {
        const v = p.clientValues[c * K + k]!;
        if (v >= 0 && seen[v] !== stamp) {
          seen[v] = stamp;
          out[t * K + k]!++;
        }
      }
    };
    if (p.active[t]! >= 0) see(p.active[t]!);
    for (let h = p.holderStart[t]!; h < p.holderStart[t + 1]!; h++) see(p.holders[h]!);
    for (let j = 0; j < W; j++) if (pl.slots[t * W + j]! >= 0) see(pl.slots[t * W + j]!);
  }
  return out;
}

/** Balanced against Kafka on the same input: tasks whose spread is better, equal, worse; both clusters' spreads. */
export interface KafkaComparison {
  tasks: { better: number; equal: number; worse: number };
  balanced: Spread;
  kafka: Spread;
}

export function compareWithKafka(balanced: StandbyPlacement, kafka: StandbyPlacement): KafkaComparison {
  const K = balanced.flat.problem.keys;
  const a = taskSpreads(balanced);
  const b = taskSpreads(kafka);
  const tasks = { better: 0, equal: 0, worse: 0 };
  for (let t = 0; t < balanced.flat.problem.tasks; t++) {
    let d = 0;
    for (let k = 0; k < K && d === 0; k++) d = a[t * K + k]! - b[t * K + k]!;
    if (d > 0) tasks.better++;
    else if (d < 0) tasks.worse++;
    else tasks.equal++;
  }
  return { tasks, balanced: spreadOf(balanced), kafka: spreadOf(kafka) };
}
