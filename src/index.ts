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

// 5. Which member of a Kafka Streams group runs each task, and where do its standbys go? (docs/streams.md)
export { assignStreams } from './streams/assign.js';
export type { StreamsGroupSpec } from './streams/input.js';

// Deprecated since 0.2.0: the root's copies of subpath names that 0.1.0 exported. Each stays for
// this release, the same value as at its subpath, and leaves in the next (CHANGELOG.md, "Deprecated").
export {
  /** @deprecated since 0.2.0: import it from 'assignor/hashing' */
  partitionForInt32,
  /** @deprecated since 0.2.0: import it from 'assignor/hashing' */
  partitionForInt64,
  /** @deprecated since 0.2.0: import it from 'assignor/hashing' */
  partitionsForPacked,
  /** @deprecated since 0.2.0: import it from 'assignor/hashing' */
  partitionsForFixed,
  /** @deprecated since 0.2.0: import it from 'assignor/hashing' */
  partitionsForInt32s,
  /** @deprecated since 0.2.0: import it from 'assignor/hashing' */
  partitionsForInt64s,
  /** @deprecated since 0.2.0: import it from 'assignor/hashing' */
  murmur2,
  /** @deprecated since 0.2.0: import it from 'assignor/hashing' */
  murmur2Batch,
  /** @deprecated since 0.2.0: import it from 'assignor/hashing' */
  toPositive,
  /** @deprecated since 0.2.0: import it from 'assignor/hashing' */
  int32Bytes,
  /** @deprecated since 0.2.0: import it from 'assignor/hashing' */
  int64Bytes,
  /** @deprecated since 0.2.0: import it from 'assignor/hashing' */
  encodeJavaUtf8Into,
  /** @deprecated since 0.2.0: import it from 'assignor/hashing' */
  type KeyEncoding,
} from './hashing/index.js';
export {
  /** @deprecated since 0.2.0: import it from 'assignor/samza' */
  runCycle,
  /** @deprecated since 0.2.0: import it from 'assignor/samza' */
  parseJobFile,
} from './samza/index.js';
export {
  /** @deprecated since 0.2.0: import it from 'assignor/channels' */
  channelPartitions,
  /** @deprecated since 0.2.0: import it from 'assignor/channels' */
  expandPlan,
  /** @deprecated since 0.2.0: import it from 'assignor/channels' */
  emitSpl,
  /** @deprecated since 0.2.0: import it from 'assignor/channels' */
  type Expansion,
} from './channels/index.js';
export {
  /** @deprecated since 0.2.0: import it from 'assignor/standby' */
  normalizeCluster,
  /** @deprecated since 0.2.0: import it from 'assignor/standby' */
  explainText,
  /** @deprecated since 0.2.0: import it from 'assignor/standby' */
  htmlReport,
  /** @deprecated since 0.2.0: import it from 'assignor/standby' */
  parseStreamsProperties,
  /** @deprecated since 0.2.0: import it from 'assignor/standby' */
  parseTaskId,
  /** @deprecated since 0.2.0: import it from 'assignor/standby' */
  formatTaskId,
  /** @deprecated since 0.2.0: import it from 'assignor/standby' */
  javaHashMapOrder,
  /** @deprecated since 0.2.0: import it from 'assignor/standby' */
  type Cluster,
} from './standby/index.js';
