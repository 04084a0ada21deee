// placeStandbys: validate -> flatten -> kernel -> a placement whose report is
// built on demand (a million tasks stay flat arrays unless someone asks).
import { loadKernels, type EngineChoice } from '../engine/kernels.js';
import { KAFKA_TAG_AWARE, KEEP_KAFKA, kafkaPlacementOf, type StandbyProblem } from '../engine/abi.js';
import { AssignorError } from '../errors.js';
import { isNormalized, type Cluster, type ClusterSpec } from './input.js';
import { normalizeCluster } from './normalize.js';
import { flatten, type FlatCluster, type Mode } from './problem.js';
import { javaHashMapOrderOf } from './hash-order.js';
import { buildReport, type PlacementReport } from './report.js';
import { reportJson } from './report-json.js';
import { totalsOf, type PlacementTotals } from './totals.js';

export type { Mode } from './problem.js';
export { askedFor, type PlacementTotals } from './totals.js';

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
  /** Kafka mode: the HA assignor's numStandbys = 0 guard (false reproduces quirk X04). */
  readonly zeroStandbyGuard: boolean;
  /** Copies asked for, placed, existing and not placed, and copies and tasks per level. */
  totals(): PlacementTotals;
  /** The full per-task / per-client report (the CLI's JSON). */
  report(): PlacementReport;
  /**
   * The same report as UTF-8 JSON, the bytes of `${JSON.stringify(report(), null, 2)}\n`,
   * in pieces of about `chunk` bytes, built from the typed arrays
   * (no object per task). `onTask(done)` is called as tasks are written.
   */
  reportJson(chunk?: number, onTask?: (done: number) => void): Generator<Uint8Array>;
  /** Balanced: Kafka's placement of the same input, for the comparison (reused from balanced's first phase when the input has no existing standbys). */
  kafka(): StandbyPlacement | undefined;
}

export function placeStandbys(input: ClusterSpec | Cluster, options: PlaceOptions = {}): StandbyPlacement {
  const mode = options.mode ?? 'balanced';
  if (mode !== 'balanced' && mode !== 'kafka') throw new AssignorError('E_USAGE', `mode must be kafka or balanced, got ${JSON.stringify(mode)}`, 'mode');
  const cluster = isNormalized(input) ? input : normalizeCluster(input);
  return placeCluster(cluster, mode, options);
}


/** How runKernel runs: the mode, Kafka's tag-aware assignor or its default one, and whether to hand back Kafka's placement too. */
interface KernelRun {
  mode: Mode;
  tagAware: boolean;
  keepKafka: boolean;
}

/**
 * Runs the mode's kernel: slots, then masks (then Kafka's slots and masks when
 * `keepKafka`, balanced only). Both modes start from Kafka's placement (balanced then
 * improves on it), so both need its fallback order, from the tasks' ids.
 */
function runKernel(kernels: ReturnType<typeof loadKernels>, p: StandbyProblem, ids: Pick<FlatCluster, 'subtopologies' | 'partitions'>, run: KernelRun): { out: Int32Array; orderExact: boolean } {
  const { mode, tagAware, keepKafka } = run;
  let order: Int32Array = new Int32Array(0);
  let orderExact = true;
  if (tagAware && p.width > 0) {
    const h = javaHashMapOrderOf(ids.subtopologies, ids.partitions);
    order = h.order;
    orderExact = h.exact;
  }
  const flags = (tagAware ? KAFKA_TAG_AWARE : 0) | (keepKafka ? KEEP_KAFKA : 0);
  if (p.width === 0) return { out: new Int32Array(0), orderExact };
  return { out: mode === 'balanced' ? kernels.standbyBalanced(p, flags, order) : kernels.standbyKafka(p, flags, order), orderExact };
}

export function placeCluster(cluster: Cluster, mode: Mode, options: PlaceOptions = {}): StandbyPlacement {
  const kernels = loadKernels(options.engine === undefined ? {} : { engine: options.engine });
  const zeroGuard = options.zeroStandbyGuard ?? true;
  const flat = flatten(cluster, mode, zeroGuard);
  const p = flat.problem;
  const tagAware = cluster.tagKeys.length > 0;
  // Balanced's first phase is Kafka's placement with balanced's counts; without existing
  // standbys those are Kafka's own counts, so the kernel hands it back for the comparison.
  const reuseKafka = mode === 'balanced' && p.holders.length === 0;
  const { out, orderExact } = runKernel(kernels, p, flat, { mode, tagAware, keepKafka: reuseKafka });
  const n = p.tasks * p.width;
  const slots = out.subarray(0, n);
  const masks = out.subarray(n, 2 * n);
  const assignor: AssignorName = mode === 'balanced' ? 'balanced' : tagAware ? 'ClientTagAwareStandbyTaskAssignor' : 'DefaultStandbyTaskAssignor';
  let kafka: StandbyPlacement | undefined;
  const kafkaOf = (): StandbyPlacement | undefined => {
    if (mode !== 'balanced') return undefined;
    if (kafka !== undefined) return kafka;
    if (reuseKafka) {
      const k = p.width === 0 ? { slots, masks } : kafkaPlacementOf(out, p.tasks, p.width);
      const kafkaSlots = k.slots;
      const kafkaMasks = k.masks;
      kafka = {
        ...placement,
        mode: 'kafka',
        assignor: tagAware ? 'ClientTagAwareStandbyTaskAssignor' : 'DefaultStandbyTaskAssignor',
        slots: kafkaSlots,
        masks: kafkaMasks,
        zeroStandbyGuard: true,
        kafka: () => undefined,
      };
      kafka = { ...kafka, totals: () => totalsOf(kafka!), report: () => buildReport(kafka!), reportJson: (chunk, onTask) => reportJson(kafka!, undefined, chunk, onTask) };
    } else kafka = placeCluster(cluster, 'kafka', { ...options, zeroStandbyGuard: true });
    return kafka;
  };
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
    zeroStandbyGuard: zeroGuard,
    totals: () => totalsOf(placement),
    // Balanced reports compare themselves with Kafka's placement of the same input.
    report: () => buildReport(placement, kafkaOf()),
    reportJson: (chunk, onTask) => reportJson(placement, kafkaOf(), chunk, onTask),
    kafka: kafkaOf,
  };
  return placement;
}
