// The package root: the front door of each room, as the README's API tour shows it (errors and
// engines, the key -> partition answer, expansion arithmetic, the Samza job model, channel plans,
// standby placement, consumer groups). Each room's full API is at its subpath: `assignor/hashing`,
// `assignor/samza`, `assignor/channels`, `assignor/standby`, `assignor/group`. It runs anywhere
// (Node, browsers, bundlers) and its types need no @types/node. The Node-only parts have their own
// entry points: 'assignor/store' (the file and Kafka coordinator stores) and 'assignor/coordinator'
// (the live coordinator); see docs/design.md, "Packaging and loading".

// Errors and engines.
export { AssignorError, ERROR_CODES, type ErrorCode } from './errors.js';
export { getKernels } from './engine/engine-info.js';
export type { EngineOptions, EngineChoice, EngineName } from './engine/abi.js';

// 1. Which partition does a key go to? (docs/formats.md, "Hashing API"; the rest at `assignor/hashing`)
export { partitionForKey, partitionsForKeys, NO_PARTITION, type Key } from './hashing/index.js';

// 2. Which task or channel owns each partition, and what happens when a topic grows?
export { analyzeExpansion, type ExpansionAnalysis } from './expansion/index.js';
export { calculateJobModel, toJobModel, jobModelJson, SamzaConfig, type JobSpec, type JobModel, type SamzaPlanOptions } from './samza/index.js';
export { planChannels, planToJson, validatePlan, type ChannelPlan } from './channels/index.js';

// 3. Where do standby replicas go? (docs/standby.md)
export { placeStandbys, type ClusterSpec, type PlaceOptions, type StandbyPlacement } from './standby/index.js';

// 4. Which consumer of a group owns each partition? (docs/group.md)
export { assignGroup, type GroupSpec, type AssignGroupOptions, type GroupAssignment } from './group/index.js';

// Deprecated since 0.2.0: the root's copies of subpath names. Each stays for this release, the
// same value as at its subpath, and leaves in the next (CHANGELOG.md, "Deprecated").
/** @deprecated since 0.2.0: import these from 'assignor/hashing' */
export {
  partitionForString,
  partitionForBytes,
  partitionForInt32,
  partitionForInt64,
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
  type KeyEncoding,
} from './hashing/index.js';
/** @deprecated since 0.2.0: import these from 'assignor/samza' */
export { runCycle, parseJobFile } from './samza/index.js';
/** @deprecated since 0.2.0: import these from 'assignor/channels' */
export { channelPartitions, expandPlan, rewidthPlan, emitSpl, type Expansion } from './channels/index.js';
/** @deprecated since 0.2.0: import these from 'assignor/standby' */
export {
  normalizeCluster,
  explainText,
  htmlReport,
  parseStreamsProperties,
  parseTaskId,
  formatTaskId,
  javaHashMapOrder,
  placeStandbysColumnar,
  columnarOf,
  type Cluster,
} from './standby/index.js';
/** @deprecated since 0.2.0: import these from 'assignor/group' */
export { groupAssignmentJson, GROUP_STRATEGIES, type GroupStrategy, type GroupReport } from './group/index.js';
