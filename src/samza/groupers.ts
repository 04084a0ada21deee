// Samza's SSP -> task groupers, on SSP objects. This is the exact-semantics
// path (samza mapper mode, tests); the base mapper's large-scale path lives in
// flat-plan.ts and is checked against these in tests.
import { AsciiColumn, asciiBytes } from '../columns/ascii-column.js';
import { decimalLength, putDecimal } from './decimal-bytes.js';
import { SamzaError, MSG } from './errors.js';
import { KEYS, SamzaConfig, broadcastSsps, elasticityFactor, sspGrouper, type ConfigInput, type SspGrouperKind } from './config.js';
import { compareSsp, sspToString, SspSet, ssp, type SSP, type SspInput, type TaskGrouping } from './model.js';
import { toSsps } from './inputs.js';
import { javaSplit } from './java-order.js';

export interface SspGrouper {
  /** SSPs without keyBucket have none (-1); a malformed SSP is refused with E_SAMZA_INPUT. */
  group(ssps: readonly SspInput[] | null): TaskGrouping;
}

export function partitionTaskName(partition: number, keyBucket: number): string {
  const name = keyBucket === -1 ? `Partition ${partition}` : `Partition ${partition} ${keyBucket}`;
  // V8 makes a name of 13+ characters a pair of pieces, flattened by its first comparison. Flattened
  // now, while young, the garbage collector drops the pair; flattened later (a million names sorted
  // or compared in an old heap), each keeps both for good and costs a copy then.
  name.charCodeAt(0);
  return name;
}

/**
 * partitionTaskName(partitions[i], buckets?.[i] ?? -1) for i < count, as one byte column: a
 * million names as one buffer, with no string made until someone asks for one (see
 * taskNames in grouping.ts). The names are ASCII by construction.
 */
export function partitionTaskNameColumn(partitions: Int32Array, buckets: Int32Array | null, count: number): AsciiColumn {
  // Each name's length first ("Partition " + digits [+ " " + digits]), so the bytes are made at their size.
  const off = new Int32Array(count + 1);
  let total = 0;
  for (let i = 0; i < count; i++) {
    const b = buckets === null ? -1 : buckets[i]!;
    total += NAME_PREFIX.length + decimalLength(partitions[i]!) + (b === -1 ? 0 : 1 + decimalLength(b));
    off[i + 1] = total;
  }
  const bytes = asciiBytes(total);
  for (let i = 0; i < count; i++) {
    let pos = off[i]!;
    for (let k = 0; k < NAME_PREFIX.length; k++) bytes[pos + k] = NAME_PREFIX[k]!;
    pos = putDecimal(bytes, pos + NAME_PREFIX.length, partitions[i]!);
    const b = buckets === null ? -1 : buckets[i]!;
    if (b !== -1) {
      bytes[pos] = 32; // ' '
      putDecimal(bytes, pos + 1, b);
    }
  }
  return new AsciiColumn(bytes, off);
}

const NAME_PREFIX = Uint8Array.from('Partition ', (c) => c.charCodeAt(0));

export function allSspTaskName(processorId: string): string {
  return `Task-${processorId}`;
}

/** Expands an SSP into its key-bucket copies; with F = 1 the one copy has key bucket -1, whatever the input had (as Samza). */
function bucketCopies(s: SSP, factor: number): SSP[] {
  if (factor === 1) return [s.keyBucket === -1 ? s : ssp(s.system, s.stream, s.partition, -1)];
  const out: SSP[] = [];
  for (let i = 0; i < factor; i++) out.push(ssp(s.system, s.stream, s.partition, i));
  return out;
}

/** Shared body of GroupByPartition and GroupBySystemStreamPartition: only the task name differs. */
function groupBy(ssps: readonly SSP[], broadcast: readonly SSP[], factor: number, taskOf: (s: SSP) => string): TaskGrouping {
  const bset = SspSet.of(broadcast);
  const out: TaskGrouping = new Map();
  for (const s of [...ssps].sort(compareSsp)) {
    if (bset.has(s)) continue;
    for (const c of bucketCopies(s, factor)) {
      const name = taskOf(c);
      let set = out.get(name);
      if (set === undefined) out.set(name, (set = new SspSet()));
      set.add(c);
    }
  }
  // Every configured broadcast SSP joins every task, even one not in the input; no task exists for it alone.
  if (broadcast.length > 0) for (const set of out.values()) for (const b of broadcast) set.add(b);
  return out;
}

export class GroupByPartition implements SspGrouper {
  private readonly broadcast: SSP[];
  private readonly factor: number;

  constructor(config: ConfigInput) {
    const c = SamzaConfig.from(config);
    this.broadcast = broadcastSsps(c);
    this.factor = elasticityFactor(c);
  }

  group(ssps: readonly SspInput[] | null): TaskGrouping {
    return groupBy(toSsps(ssps ?? [], 'ssps'), this.broadcast, this.factor, (s) => partitionTaskName(s.partition, s.keyBucket));
  }
}

export class GroupBySystemStreamPartition implements SspGrouper {
  private readonly broadcast: SSP[];
  private readonly factor: number;

  constructor(config: ConfigInput) {
    const c = SamzaConfig.from(config);
    this.broadcast = broadcastSsps(c);
    this.factor = elasticityFactor(c);
  }

  group(ssps: readonly SspInput[] | null): TaskGrouping {
    return groupBy(toSsps(ssps ?? [], 'ssps'), this.broadcast, this.factor, sspToString);
  }
}

export class AllSspToSingleTaskGrouper implements SspGrouper {
  constructor(private readonly processors: readonly string[]) {}

  group(ssps: readonly SspInput[] | null): TaskGrouping {
    if (ssps === null) throw new SamzaError('E_SAMZA_NO_SSPS', 'SamzaException', MSG.sspSetNull);
    if (ssps.length === 0) throw new SamzaError('E_SAMZA_NO_SSPS', 'SamzaException', MSG.noInputSsps, 'task.inputs');
    const all = toSsps(ssps, 'ssps');
    const out: TaskGrouping = new Map();
    for (const p of this.processors) out.set(allSspTaskName(p), SspSet.of(all));
    return out;
  }
}

/** processor.list as AllSspToSingleTaskGrouperFactory reads it: Java's split, which drops trailing empty ids. */
export function allSspProcessors(list: string): string[] {
  const ids = javaSplit(list, ',');
  if (ids.length === 0) throw new SamzaError('E_SAMZA_PROCESSORS', 'SamzaException', MSG.processorListEmpty, KEYS.processorList);
  return ids;
}

/** The factory step: AllSspToSingleTask refuses broadcast streams and reads processor.list. */
export function createSspGrouper(input: ConfigInput, kind?: SspGrouperKind): SspGrouper {
  const config = SamzaConfig.from(input);
  kind ??= sspGrouper(config).kind;
  switch (kind) {
    case 'GroupByPartition':
      return new GroupByPartition(config);
    case 'GroupBySystemStreamPartition':
      return new GroupBySystemStreamPartition(config);
    case 'AllSspToSingleTask': {
      if (broadcastSsps(config).length > 0) throw new SamzaError('E_SAMZA_ALLSSP_BROADCAST', 'ConfigException', MSG.allSspBroadcast, KEYS.broadcastInputs);
      const list = config.get(KEYS.processorList);
      // Samza splits a null processor.list: a NullPointerException there.
      if (list === undefined) throw new SamzaError('E_SAMZA_PROCESSORS', 'NullPointerException', `${KEYS.processorList} is not set: AllSspToSingleTaskGrouper needs the processor ids`, KEYS.processorList);
      return new AllSspToSingleTaskGrouper(allSspProcessors(list));
    }
  }
}
