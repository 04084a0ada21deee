// The kernel ABI: every kernel family's interface, the flags its calls take and the decoders of
// its outputs, in one module. Domain code reads this module and asks src/engine/kernels.ts for an
// engine; the twins (src/engine/reference/<family>.ts, src/engine/wasm/<family>.ts) implement it.
// Nothing here imports an engine, so no engine file imports back into the facade.

// ---- hashing --------------------------------------------------------------------------------

/**
 * Kernel memory for hashing string keys run by run (a run: consecutive keys of
 * one batch). Per run, the producer writes cumulative unit counts into
 * offsets[from .. to] (offsets[from] = 0) and either the keys' UTF-16 units into
 * `units` (then hashUnits) or, when it knows them to be ASCII, their bytes into
 * `bytes` (then hashBytes: ASCII bytes are the UTF-16 units, so the offsets hold).
 * The views stay valid for the whole producer call.
 */
export interface StringRuns {
  /** Room for one run's UTF-16 code units, as bytes (UTF-16LE). */
  readonly units: Uint8Array;
  /** Room for one run's bytes: 3 per unit, plus 4. */
  readonly bytes: Uint8Array;
  /** count + 1 entries. */
  readonly offsets: Int32Array;
  /** The results, count entries; the producer may fill some itself (null keys). */
  readonly out: Int32Array;
  /**
   * Encodes keys from .. to-1 from `units`, each on its own, as Java's
   * String.getBytes(UTF_8) does (an unpaired surrogate is '?', and no pair
   * forms across two keys), and hashes them into out[from .. to). Returns the
   * run's byte count (equal to its unit count when the run was ASCII).
   */
  hashUnits(from: number, to: number): number;
  /** Hashes keys from .. to-1 from `bytes` into out[from .. to). */
  hashBytes(from: number, to: number): void;
}

export interface HashKernels {
  /**
   * Key i is data[offsets[i] .. offsets[i+1]). Returns, per key,
   * toPositive(murmur2(key)) % n when n > 0, or the signed murmur2 when n == 0.
   */
  hashVar(data: Uint8Array, offsets: Int32Array, count: number, n: number): Int32Array;
  /** Key i is data[i*keyLen .. (i+1)*keyLen); results as for hashVar. */
  hashFixed(data: Uint8Array, keyLen: number, count: number, n: number): Int32Array;
  /**
   * Hashes `count` keys that a producer writes run by run into kernel memory
   * (see StringRuns); runs hold at most `runUnits` UTF-16 units. Results as for hashVar.
   */
  hashRuns(count: number, runUnits: number, n: number, produce: (runs: StringRuns) => void): Int32Array;
  /**
   * Kernel memory that stays put across calls (see PinnedKeys): room for
   * `maxBytes` key bytes and `maxKeys` keys. The WASM engines give it an
   * instance of its own, so no other call ever touches it.
   */
  pinKeys(maxBytes: number, maxKeys: number): PinnedKeys;
}

/**
 * Key bytes that a caller writes straight into kernel memory once and hashes
 * in place: no copy in, no copy out (results are a view of `out`). The caller
 * checks bounds; the kernels trust them.
 */
export interface PinnedKeys {
  readonly bytes: Uint8Array;
  /** maxKeys + 1 entries: key i is bytes[offsets[i] .. offsets[i+1]). */
  readonly offsets: Int32Array;
  /** maxKeys entries: results of the last call. */
  readonly out: Int32Array;
  /** out[i] for key i = bytes[i*keyLen .. (i+1)*keyLen), i < count; results as for hashVar. */
  hashFixed(keyLen: number, count: number, n: number): void;
  /** out[i] for key i = bytes[offsets[i] .. offsets[i+1]), i < count. */
  hashVar(count: number, n: number): void;
}

export interface FoldKernels {
  /**
   * out[i] = partitions[i] mod bases[streams[i]]: the task slot of partition
   * partitions[i] of stream streams[i] when that stream's task set is fixed at
   * its base partition count (bases must be >= 1). Returns `{ bad }` instead,
   * the index of the first item with a stream index outside bases or a
   * negative partition, when there is one.
   */
  foldPartitions(streams: Int32Array, partitions: Int32Array, bases: Int32Array): Int32Array | { bad: number };
}

/** rowTask value of a row whose SSP is in every task (AllSspToSingleTask), in SamzaProxyInput. */
export const EVERY_TASK = -2;
/** SamzaProxyResult.failKind: the mapper refused a count that is not a multiple / the previous task is not a current task. */
export const FAIL_NOT_MULTIPLE = 1;
export const FAIL_NO_TASK = 2;

/**
 * Samza's SSPGrouperProxy + HashSystemStreamPartitionMapper on flat rows (assembly/samza-proxy.ts
 * says how the SSP -> task table is laid out). Streams are indices of the current input streams.
 */
export interface SamzaProxyInput {
  /** Previous assignment, one row per (task, SSP) occurrence: stream is an index into prevStreamToCur. */
  prevStream: Int32Array;
  /** Previous stream -> current input stream index, or -1 for a stream that is no input now. */
  prevStreamToCur: Int32Array;
  prevPartition: Int32Array;
  /** null: every previous row has key bucket -1. */
  prevBucket: Int32Array | null;
  /** Index of the row's previous task (into prevToCur and prevRank). */
  prevTask: Int32Array;
  /** Rank of each previous task in Java String order; needed only when an SSP has several previous tasks. */
  prevRank: Int32Array | null;
  /** Previous task -> current task index, or -1 when it is not a task of the raw grouping. */
  prevToCur: Int32Array;
  /** Per stream: its partition count (the table covers partitions below it). */
  limit: Int32Array;
  /** Per stream: first table slot; offset[S] = table size. */
  offset: Int32Array;
  /** Slots per partition: 1 (elasticity off), or factor + 1 (key buckets -1 .. factor - 1). */
  width: number;
  /** Per stream: its (task, SSP) occurrences in the raw grouping. */
  curCount: Int32Array;
  /** Table slots of broadcast SSPs (never moved, never looked up). */
  exclude: Int32Array;
  /** The raw grouping's rows in SSP order. */
  stream: Int32Array;
  partition: Int32Array;
  bucket: Int32Array | null;
  /** Raw task of each row, or EVERY_TASK. */
  rowTask: Int32Array;
  nTasks: number;
}

/**
 * Byte offsets of the header samzaProxy(header) reads (assembly/samza-proxy.ts): the
 * SamzaProxyInput's arrays (0 for a null one) and counts, then the arena the binding gives it:
 * the table (tableLen slots), prevCount (per stream), out (per row), taskFirst (per task) and fail
 * (2 ints). i32 slots; pointers are byte addresses of i32 arrays.
 */
export const SAMZA_HEADER = {
  prevRows: 0,
  prevStream: 4,
  prevStreamToCur: 8,
  prevPartition: 12,
  prevBucket: 16,
  prevTask: 20,
  prevRank: 24,
  prevToCur: 28,
  streams: 32,
  limit: 36,
  offset: 40,
  width: 44,
  curCount: 48,
  exclude: 52,
  excludeCount: 56,
  rows: 60,
  stream: 64,
  partition: 68,
  bucket: 72,
  rowTask: 76,
  tasks: 80,
  table: 84,
  prevCount: 88,
  out: 92,
  taskFirst: 96,
  fail: 100,
} as const;
export const SAMZA_HEADER_BYTES = 104;

export type SamzaProxyResult =
  | { needsRanks: true }
  | {
      needsRanks: false;
      /** Task of each row after the proxy (EVERY_TASK rows that stay everywhere keep EVERY_TASK). */
      task: Int32Array;
      /** Per stream: its (task, SSP) occurrences in the previous assignment. */
      prevCount: Int32Array;
      /** The row Samza fails at first, or -1; with failKind and the previous task involved. */
      failedRow: number;
      failKind: number;
      failPrevTask: number;
    };

export interface SamzaKernels {
  /** Returns `{ needsRanks: true }` when an SSP has two previous tasks and prevRank is null. */
  samzaProxy(input: SamzaProxyInput): SamzaProxyResult;
}

// ---- channel plans ---------------------------------------------------------------------------

/** Strategy codes of `channelPlan`. Round-robin and flink both rotate; they differ only in `start`. */
export const STRATEGY_CONTIGUOUS = 0;
export const STRATEGY_ROTATE = 1;

export interface ChannelGrouping {
  /** w + 1 entries: channel c's partitions are members[offsets[c] .. offsets[c + 1]). */
  offsets: Int32Array;
  /** n entries: the partitions, ascending within each channel. */
  members: Int32Array;
}

export interface ChannelCheck {
  /**
   * state[p]: 0 when no channel lists partition p, c + 1 when only channel c
   * does, -(c + 1) when two or more do (c the last one listed).
   */
  state: Int32Array;
  /** perChannel[c]: how many distinct in-range partitions channel c lists. */
  perChannel: Int32Array;
  /** Entries whose partition is outside [0, n). */
  outOfRange: number;
  /** Partitions no channel lists. */
  missing: number;
  /** Partitions two or more channels list. */
  duplicated: number;
  /** Entries repeating a partition already listed by the same channel (the `4, 4` padding). */
  repeats: number;
}

export interface ChannelKernels {
  /**
   * channelOf[p] for p in [0, n). STRATEGY_CONTIGUOUS: blocks, the first n % w
   * one larger. STRATEGY_ROTATE: (start + p) % w, with 0 <= start < w.
   */
  channelPlan(strategy: number, n: number, w: number, start: number): Int32Array;
  /** channelPlan plus its grouping by channel, computed directly (no sort). */
  channelLayout(strategy: number, n: number, w: number, start: number): { channelOf: Int32Array } & ChannelGrouping;
  /** Counting sort of partitions by channel; every channelOf entry must be in [0, w). */
  channelGroup(channelOf: Int32Array, w: number): ChannelGrouping;
  /**
   * Checks channel lists against a topic of n partitions: channel c lists
   * partitions[start[c] .. start[c + 1]) (start has w + 1 ascending offsets);
   * the ids may be anything.
   */
  channelValidate(start: Int32Array, partitions: Int32Array, n: number): ChannelCheck;
}

// ---- standby placement -----------------------------------------------------------------------

/** A flat standby-placement problem (built by src/standby/problem.ts). */
export interface StandbyProblem {
  /** C clients, K configured tag keys, G tag groups (distinct value tuples), T stateful tasks. */
  clients: number;
  keys: number;
  groups: number;
  tasks: number;
  /** Slots per task in the output (upper bound of standbys placed per task). */
  width: number;
  /** C*K: global value id of client c's value for key k, -1 when it lacks the key. */
  clientValues: Int32Array;
  /** V: number of global value ids (sizes the scratch arrays). */
  values: number;
  /** K: distinct values of key k over all clients (Kafka's tagKeyToValues sizes). */
  distinct: Int32Array;
  /** C: group of each client; G*K: the group's value ids. */
  groupOf: Int32Array;
  groupValues: Int32Array;
  /** C: tasks held before placement (all actives, stateless too, plus existing standbys). */
  load: Int32Array;
  /** C: stream threads (>= 1). */
  capacity: Int32Array;
  /** T: client holding the task's active, -1 for none. */
  active: Int32Array;
  /** T: standbys to place for the task. */
  need: Int32Array;
  /** Existing standby holders of task t: holders[holderStart[t] .. holderStart[t+1]). */
  holderStart: Int32Array;
  holders: Int32Array;
}

/**
 * Byte offsets of the header standbyKafka(header) and standbyBalanced(header) read (i32 slots;
 * pointers are byte addresses of i32 arrays): the StandbyProblem's counts and arrays, then the
 * call's flags, the fallback order (task indices) and the output (see StandbyKernels).
 */
export const STANDBY_HEADER = {
  clients: 0,
  keys: 4,
  groups: 8,
  tasks: 12,
  width: 16,
  values: 20,
  clientValues: 24,
  distinct: 28,
  groupOf: 32,
  groupValues: 36,
  load: 40,
  capacity: 44,
  active: 48,
  need: 52,
  holderStart: 56,
  holders: 60,
  flags: 64,
  fallbackOrder: 68,
  out: 72,
} as const;
export const STANDBY_HEADER_BYTES = 76;

/** Kafka-mode switches. */
export const KAFKA_TAG_AWARE = 1; // ClientTagAwareStandbyTaskAssignor, else DefaultStandbyTaskAssignor
/** Internal (balanced's first phase): a task with need 0 gets nothing, not the X04 do-while's one standby. */
export const NEED_EXACT = 2;
/**
 * Balanced only: the result also carries Kafka's placement (before balanced improves it), as
 * the tasks where it differs: after the 2*T*W ints, D, then D records of 1 + 2*W ints (the
 * task, Kafka's W slots, Kafka's W masks). kafkaPlacementOf() reads it back. (Balanced
 * changes few tasks, so this is about half the size of a second full placement.)
 */
export const KEEP_KAFKA = 4;

/** Kafka's slots and masks from a KEEP_KAFKA result (fresh arrays). */
export function kafkaPlacementOf(res: Int32Array, T: number, W: number): { slots: Int32Array; masks: Int32Array } {
  const TW = T * W;
  const slots = res.slice(0, TW);
  const masks = res.slice(TW, 2 * TW);
  const d = res[2 * TW]!;
  let at = 2 * TW + 1;
  for (let i = 0; i < d; i++) {
    const t = res[at++]!;
    for (let j = 0; j < W; j++) slots[t * W + j] = res[at++]!;
    for (let j = 0; j < W; j++) masks[t * W + j] = res[at++]!;
  }
  return { slots, masks };
}

export interface StandbyKernels {
  /**
   * Balanced mode. Returns 2*T*W ints: [0, T*W) the client of slot (t, j) or -1,
   * then [T*W, 2*T*W) the bit mask of keys (bit k = key k) on which that standby
   * differs from every copy placed before it.
   */
  standbyBalanced(p: StandbyProblem, flags: number, fallbackOrder: Int32Array): Int32Array;
  /**
   * Kafka mode, same output. `fallbackOrder` lists task indices in the order
   * Kafka's fallback loop visits them (a java.util.HashMap order).
   */
  standbyKafka(p: StandbyProblem, flags: number, fallbackOrder: Int32Array): Int32Array;
}

/** Popcount of a key mask (K <= 5). */
function popcount(x: number): number {
  let n = 0;
  while (x !== 0) {
    n += x & 1;
    x >>>= 1;
  }
  return n;
}

/**
 * Preference score of a mask of differing keys: more keys first, then keys of
 * higher precedence (key 0 is the most significant). Higher is better.
 */
export function maskScore(mask: number, k: number): number {
  let rev = 0;
  for (let i = 0; i < k; i++) if ((mask >>> i) & 1) rev |= 1 << (k - 1 - i);
  return (popcount(mask) << k) | rev;
}

// ---- consumer-group balancing ----------------------------------------------------------------

/** The balancing kernel's problem, which the planner (GroupPlanProblem below) builds inside the kernel. */
export interface GroupProblem {
  /** Member count. Members are 0..members-1; ties go to the lowest index. */
  members: number;
  /** Distinct racks: memberRack and racks hold indices below this, or -1. */
  rackCount: number;
  /** Per member: its rack, or -1. */
  memberRack: Int32Array;
  /** Per topic: the balanced class it belongs to (0..topics-1), or -1 when only per-topic balance applies. */
  topicClass: Int32Array;
  /** Per topic: partitions that keep their owner when one item keeps it (>= 1). */
  topicWeight: Int32Array;
  /** Slots of topic t, one per subscriber: subStart[t] .. subStart[t+1] (T + 1 entries). */
  subStart: Int32Array;
  /** Subscribers of topic t, ascending: subStart[t+1] - subStart[t] of subs from subBase[t] (lists may be shared). */
  subs: Int32Array;
  subBase: Int32Array;
  /**
   * Per topic: the first topic with the same subscriber list, its list id (subscriberListIds in
   * reference/group.ts), so that work done for a list serves every topic that has it. Topics with
   * equal lists must have equal ids.
   */
  subList: Int32Array;
  /** Items of topic t: itemStart[t] .. itemStart[t+1]. */
  itemStart: Int32Array;
  /** Per item: its previous owner, or -1. An owner that does not subscribe the topic counts as -1. */
  prevOwner: Int32Array;
  /** Per item: preferred owner when the item is placed afresh, or -1. Empty: no item has one. */
  softOwner: Int32Array;
  /** Replica racks of item i: racks[rackStart[i] .. rackStart[i+1]), distinct. Read only when rackCount > 0 (may be empty otherwise). */
  rackStart: Int32Array;
  racks: Int32Array;
}

/**
 * The group planner's problem, whole (assembly/group-plan.ts `groupPlan(header)`): every decision
 * of a sticky rebalance (co-partitioned sets, growth folding, racks, balanced classes, the kernel)
 * from the owners the caller resolved. Written by src/engine/wasm/group.ts and by the broker plugin
 * (jvm/), so its layout is the ABI: PLAN_HEADER below. Partitions are flat, topic after topic:
 * topic t's partition p is at topicStart(t) + p, N partitions in all.
 */
export interface GroupPlanProblem {
  /** Member count; members are 0..members-1 (ties go to the lowest index). */
  members: number;
  /** Per topic: its partition count (>= 1). */
  counts: Int32Array;
  /** Per topic: the partition count it had before a growth, 0 when none is known. Ignored with inferGrowth. */
  from: Int32Array;
  /** Infer `from` from the owners: a topic whose owned partitions are exactly 0..B-1 (0 < B < count) grew from B. */
  inferGrowth: boolean;
  /** A member may hold up to growthSkew x its fair share of a grown topic to keep every key. */
  growthSkew: number;
  /**
   * Subscriber lists, each written once however many topics have it: list l is
   * listMembers[listStart[l] .. listStart[l+1]), ascending member indices. Lists may repeat.
   */
  listStart: Int32Array;
  listMembers: Int32Array;
  /** Per topic: the list of its subscribers (an index into listStart). */
  topicList: Int32Array;
  /** Per partition (flat): its current owner, or -1. */
  owner: Int32Array;
  /** Distinct racks; 0 when racks are not in use (memberRack, rackStart and racks are then not read). */
  rackCount: number;
  /** Per member: its rack, or -1. */
  memberRack: Int32Array;
  /** Replica racks of partition i (flat) that some member is in: racks[rackStart[i] .. rackStart[i+1]), distinct. */
  rackStart: Int32Array;
  racks: Int32Array;
  /** Co-partitioned sets: set g is coTopics[coStart[g] .. coStart[g+1]), the subscribed topics it names, in its order; a topic is in one set at most, once. */
  coStart: Int32Array;
  coTopics: Int32Array;
}

/** Why a co-partitioned set was not honored (GroupPlanResult.coStatus). */
export const CO_HONORED = 0;
export const CO_TOO_FEW = 1;
export const CO_COUNTS_DIFFER = 2;
export const CO_SUBSCRIBERS_DIFFER = 3;

/** What happened to a grown topic (GroupPlanResult.growth). */
export const GROWTH_FOLDED = 1;
/** Not a multiple of the old count, or no subscribers. */
export const GROWTH_NOT_FOLDABLE = 2;
/** Some old partitions have no owner in the group; value: how many. */
export const GROWTH_ORPHANS = 3;
/** Keeping every key would give a member more than growthSkew x its share; value: that member's partitions. */
export const GROWTH_SKEW = 4;

export interface GroupPlanResult {
  /** Per partition (flat): its new owner, or -1 for topics without subscribers. */
  owner: Int32Array;
  /** Growths seen, as triples (topic, GROWTH_* code, value), in the order the planner met them; `from` of each is the problem's (or the inferred) count. */
  growth: Int32Array;
  /** Per topic: the count before a growth the planner used (the problem's `from`, or the inferred one). */
  from: Int32Array;
  /** Per co-partitioned set: (CO_* code, the topic that broke it or -1). */
  coStatus: Int32Array;
}

/**
 * Byte offsets of the header groupPlan reads (i32 slots; pointers are byte addresses of i32
 * arrays; growthSkew is an f64). Outputs: the kernel writes owner (N), growth (3 x topics, its
 * triple count in growthCount), from (topics) and coStatus (2 x sets); it returns 0, or 1 when
 * its balancing flow is infeasible (a bug).
 */
export const PLAN_HEADER = {
  members: 0,
  topics: 4,
  rackCount: 8,
  coSets: 12,
  inferGrowth: 16,
  counts: 20,
  from: 24,
  listStart: 28,
  listMembers: 32,
  owner: 36,
  memberRack: 40,
  rackStart: 44,
  racks: 48,
  coStart: 52,
  coTopics: 56,
  outOwner: 60,
  outGrowth: 64,
  outGrowthCount: 68,
  outFrom: 72,
  outCoStatus: 76,
  growthSkew: 80,
  topicList: 88,
  lists: 92,
} as const;
export const PLAN_HEADER_BYTES = 96;

export interface GroupKernels {
  /** The next owners of a sticky group; throws when the balancing flow is infeasible (a bug). */
  groupPlan(p: GroupPlanProblem): GroupPlanResult;
}

// ---- streams groups (KIP-1071) ----------------------------------------------------------------

/**
 * The active tasks of a Kafka Streams group (assembly/streams.ts `streamsActives(header)`), from the
 * members' claims in canonical order: members grouped by process (processes in ProcessId order,
 * members by id), tasks in task order (subtopology, then partition), stateless ones included.
 * Written by src/engine/wasm/streams.ts (and, later, by the broker plugin): its layout is STREAMS_HEADER.
 */
export interface StreamsActivesProblem {
  /** Per process (P + 1): its members are processStart[p] .. processStart[p+1]). Every process has a member. */
  processStart: Int32Array;
  /** Task count; tasks are 0..tasks-1. */
  tasks: number;
  /** Previous active tasks member m claims: claims[claimStart[m] .. claimStart[m+1]) (task indices, any order). */
  claimStart: Int32Array;
  claims: Int32Array;
  /**
   * Warm candidates of task t (members with its state: previous standbys, offset reporters):
   * warmMember[warmStart[t] .. warmStart[t+1]), with warmStandby (1: a previous standby) and warmOffset (its offset sum).
   */
  warmStart: Int32Array;
  warmMember: Int32Array;
  warmStandby: Int32Array;
  warmOffset: BigInt64Array;
}

/** Byte offsets of the i32 slots in the streams header (pointers and counts). */
export const STREAMS_HEADER = {
  processes: 0,
  members: 4,
  tasks: 8,
  processStart: 12,
  claimStart: 16,
  claims: 20,
  warmStart: 24,
  warmMember: 28,
  warmStandby: 32,
  warmOffset: 36,
  outOwner: 40,
} as const;
export const STREAMS_HEADER_BYTES = 44;

/**
 * Standbys moved over the tags (assembly/streams-spread.ts `streamsSpread(header)`): from a placement
 * (the broker's own), each stateful task's standbys are moved, one at a time, to the process that
 * spreads the task's copies over the most values of each tag key (in precedence order), only when
 * that is strictly better and keeps every process inside the placement's range of loads.
 */
export interface StreamsSpreadProblem {
  /** Per process (P + 1): its members are processStart[p] .. processStart[p+1]). */
  processStart: Int32Array;
  /** K tag keys; processValues (P*K): process p's value id for key k, -1 when it lacks the key. */
  keys: number;
  processValues: Int32Array;
  /** Per member: the tasks it holds (actives, stateless ones too, and standbys). */
  memberLoad: Int32Array;
  /** Stateful tasks: T, and W standby slots per task. */
  tasks: number;
  width: number;
  /** Per task: the member running its active. */
  activeMember: Int32Array;
  /** T*W: the member holding standby j of task t at t * W + j, -1 for none. */
  standbyMember: Int32Array;
}

export const SPREAD_HEADER = {
  processes: 0,
  keys: 4,
  tasks: 8,
  width: 12,
  processStart: 16,
  processValues: 20,
  memberLoad: 24,
  activeMember: 28,
  standbyMember: 32,
} as const;
export const SPREAD_HEADER_BYTES = 36;

export interface StreamsKernels {
  /** The member running each task as active (owner per task). */
  streamsActives(p: StreamsActivesProblem): Int32Array;
  /** The standby members after the moves (T*W, as standbyMember). */
  streamsSpread(p: StreamsSpreadProblem): Int32Array;
}

// ---- all families ---------------------------------------------------------------------------

export interface Kernels extends HashKernels, FoldKernels, ChannelKernels, StandbyKernels, SamzaKernels, GroupKernels, StreamsKernels {
  /** 'reference', 'wasm-scalar' or 'wasm-simd'. */
  readonly name: EngineName;
}

export type EngineName = 'reference' | 'wasm-scalar' | 'wasm-simd';
/** What a caller may ask for: `wasm` picks SIMD when the runtime validates it. */
export type EngineChoice = 'wasm' | EngineName;
export interface EngineOptions {
  engine?: EngineChoice;
}

