// placeStandbys: validate -> flatten -> kernel -> a placement whose report is
// built on demand (a million tasks stay flat arrays unless someone asks).
import { getKernels, type EngineChoice } from '../engine/kernels.js';
import { KAFKA_TAG_AWARE } from '../engine/reference/standby.js';
import { AssignorError } from '../errors.js';
import { normalizeCluster, isNormalized, type Cluster, type ClusterSpec } from './input.js';
import { flatten, type FlatCluster, type Mode } from './problem.js';
import { javaHashMapOrder } from './hash-order.js';
import { levelOf, type Level } from './levels.js';
import { buildReport, type PlacementReport } from './report.js';

export type { Mode } from './problem.js';

export interface PlaceOptions {
  /** 'balanced' (default) or 'kafka'. */
  mode?: Mode;
  engine?: EngineChoice;
  /**
   * Kafka mode only. true (default): numStandbys = 0 places nothing, as
   * HighAvailabilityTaskAssignor returns early. false: reproduce quirk X04, the
   * tag-aware do-while placing one standby per task (the unguarded KIP-924
   * TaskAssignmentUtils path).
   */
  zeroStandbyGuard?: boolean;
}

export type AssignorName = 'balanced' | 'ClientTagAwareStandbyTaskAssignor' | 'DefaultStandbyTaskAssignor';

export interface StandbyPlacement {
  readonly mode: Mode;
  readonly assignor: AssignorName;
  readonly engine: string;
  readonly cluster: Cluster;
  readonly flat: FlatCluster;
  /** Slot (t, j) is index t * width + j: the client index (ProcessId order) or -1. */
  readonly slots: Int32Array;
  /** Same indexing: keys on which the standby differs from the copies placed before it. */
  readonly masks: Int32Array;
  readonly width: number;
  /** Kafka mode: false when the fallback's HashMap order could not be modelled exactly. */
  readonly orderExact: boolean;
  /** Standbys per level, placed standbys, and standbys asked for but not placed. */
  totals(): PlacementTotals;
  /** The full per-task / per-client report (the CLI's JSON). */
  report(): PlacementReport;
}

export interface PlacementTotals {
  tasks: number;
  standbys: number;
  unplaced: number;
  standbyLevels: Record<Level | 'untagged', number>;
}

export function placeStandbys(input: ClusterSpec | Cluster | unknown, options: PlaceOptions = {}): StandbyPlacement {
  const mode = options.mode ?? 'balanced';
  if (mode !== 'balanced' && mode !== 'kafka') throw new AssignorError('E_USAGE', `mode must be kafka or balanced, got ${JSON.stringify(mode)}`, 'mode');
  const cluster = isNormalized(input) ? input : normalizeCluster(input);
  return placeCluster(cluster, mode, options);
}


export function placeCluster(cluster: Cluster, mode: Mode, options: PlaceOptions = {}): StandbyPlacement {
  const kernels = getKernels(options.engine === undefined ? {} : { engine: options.engine });
  const zeroGuard = options.zeroStandbyGuard ?? true;
  const flat = flatten(cluster, mode, zeroGuard);
  const p = flat.problem;
  const tagAware = cluster.tagKeys.length > 0;
  let out: Int32Array;
  let orderExact = true;
  if (mode === 'balanced') {
    out = kernels.standbyBalanced(p);
  } else if (p.width === 0) {
    out = new Int32Array(0);
  } else {
    let order: Int32Array = new Int32Array(0);
    if (tagAware) {
      const h = javaHashMapOrder(cluster.tasks);
      order = h.order;
      orderExact = h.exact;
    }
    out = kernels.standbyKafka(p, tagAware ? KAFKA_TAG_AWARE : 0, order);
  }
  const n = p.tasks * p.width;
  const slots = out.subarray(0, n);
  const masks = out.subarray(n, 2 * n);
  const assignor: AssignorName = mode === 'balanced' ? 'balanced' : tagAware ? 'ClientTagAwareStandbyTaskAssignor' : 'DefaultStandbyTaskAssignor';
  const placement: StandbyPlacement = {
    mode,
    assignor,
    engine: kernels.name,
    cluster,
    flat,
    slots,
    masks,
    width: p.width,
    orderExact,
    totals: () => totalsOf(placement),
    report: () => buildReport(placement),
  };
  return placement;
}

function totalsOf(pl: StandbyPlacement): PlacementTotals {
  const p = pl.flat.problem;
  const K = p.keys;
  const levels: Record<Level | 'untagged', number> = { absolute: 0, partial: 0, least: 0, untagged: 0 };
  let standbys = 0;
  let unplaced = 0;
  for (let t = 0; t < p.tasks; t++) {
    let placed = 0;
    for (let j = 0; j < pl.width; j++) {
      const s = t * pl.width + j;
      if (pl.slots[s]! < 0) continue;
      placed++;
      levels[levelOf(pl.masks[s]!, K)]++;
    }
    standbys += placed;
    unplaced += Math.max(0, askedFor(pl, t) - placed);
  }
  return { tasks: p.tasks, standbys, unplaced, standbyLevels: levels };
}

/** Standbys the task should get in this call: numStandbys, less existing ones in balanced mode. */
export function askedFor(pl: StandbyPlacement, t: number): number {
  const p = pl.flat.problem;
  if (pl.mode === 'kafka') return pl.cluster.numStandbys;
  return Math.max(0, pl.cluster.numStandbys - (p.holderStart[t + 1]! - p.holderStart[t]!));
}

