// The package root: the documented entry points of each room, nothing else (helpers such as
// `gcd`, `askedFor` or `readSettings` stay internal; each room's full API is at its subpath,
// `assignor/hashing`, `assignor/samza`, `assignor/channels`, `assignor/standby`, `assignor/group`).
// It runs anywhere (Node, browsers, bundlers) and its types need no @types/node. The Node-only
// parts have their own entry points: 'assignor/store' (the file and Kafka coordinator stores)
// and 'assignor/coordinator' (the live coordinator); see docs/design.md, "Packaging and loading".

// Errors and engines.
export { AssignorError, ERROR_CODES, type ErrorCode } from './errors.js';
export { getKernels } from './engine/engine-info.js';
export type { EngineOptions, EngineChoice, EngineName } from './engine/abi.js';

// 1. Which partition does a key go to? (docs/formats.md, "Hashing API")
export {
  partitionForKey,
  partitionForString,
  partitionForBytes,
  partitionForInt32,
  partitionForInt64,
  partitionsForKeys,
  partitionsForPacked,
  partitionsForFixed,
  partitionsForInt32s,
  partitionsForInt64s,
  murmur2,
  murmur2Batch,
  toPositive,
  int32Bytes,
  int64Bytes,
  encodeJavaUtf8Into,
  createKeyBatch,
  KeyBatch,
  NO_PARTITION,
  type Key,
  type KeyEncoding,
  type KeyBatchOptions,
  type StringEncoding,
} from './hashing/index.js';

// 2. Which task or channel owns each partition, and what happens when a topic grows?
export { analyzeExpansion, type ExpansionAnalysis } from './expansion/index.js';
export {
  calculateJobModel,
  toJobModel,
  jobModelJson,
  runCycle,
  parseJobFile,
  SamzaConfig,
  type JobInput,
  type JobSpec,
  type JobFile,
  type JobModel,
  type JobModelPlan,
  type SamzaPlanOptions,
  type MapperMode,
  type CycleResult,
} from './samza/index.js';
export {
  planChannels,
  channelPartitions,
  validatePlan,
  expandPlan,
  rewidthPlan,
  emitSpl,
  planToJson,
  type ChannelPlan,
  type PlanInput,
  type PlanJson,
  type ValidationReport,
  type Expansion,
  type Rewidth,
  type SplOptions,
} from './channels/index.js';

// 3. Where do standby replicas go? (docs/standby.md)
export {
  placeStandbys,
  normalizeCluster,
  explainText,
  htmlReport,
  parseStreamsProperties,
  parseTaskId,
  formatTaskId,
  javaHashMapOrder,
  type ClusterSpec,
  type Cluster,
  type PlaceOptions,
  type StandbyPlacement,
  type StandbyReport,
  type Mode as StandbyMode,
} from './standby/index.js';
// The same placement from typed arrays, without per-task objects (docs/standby.md, "Columnar input").
export { placeStandbysColumnar, columnarOf, type ColumnarCluster, type ColumnarPlacement } from './standby/index.js';

// 4. Which consumer of a group owns each partition? (docs/group.md; the whole room is `assignor/group`)
export { assignGroup, groupAssignmentJson, GROUP_STRATEGIES, type AssignGroupOptions, type GroupAssignment, type GroupStrategy, type GroupSpec, type GroupReport } from './group/index.js';
