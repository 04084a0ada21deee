// Public API of src/samza: Samza job models with partition expansion (SEP-5).
export { SamzaError } from './errors.js';
export {
  ssp,
  type SSP,
  type SspInput,
  type TaskModel,
  type ContainerModel,
} from './model.js';
export { type MapInput } from './inputs.js';
export { SamzaConfig, type ConfigInput } from './config.js';
export { GroupByPartition, GroupBySystemStreamPartition, AllSspToSingleTaskGrouper, createSspGrouper, type SspGrouper } from './groupers.js';
export { sspGrouperProxy } from './samza-proxy.js';
export {
  groupByContainerCount,
  balanceByContainerCount,
  groupByContainerIds,
  groupByContainerIdsWithLocality,
  ANY_HOST,
  type ContainerAssignment,
} from './container-groupers.js';
export { assignChangelogPartitions, mergeChangelogMappings } from './changelog.js';
export {
  calculateJobModel,
  type JobSpec,
  type JobModelPlan,
  type PlanOptions as SamzaPlanOptions,
  type PreviousInput,
} from './plan.js';
export { previousRowsOfGrouping, type PreviousRows } from './previous.js';
export { toJobModel, jobModelJson, jobModelJsonBytes, type JobModel } from './job-model.js';
export { runCycle, type CycleResult } from './cycle.js';
export type { CoordinatorStoreReader } from './store-types.js';
// What a reader of a coordinator stream needs (docs/samza.md, "Coordinator store records").
export { TYPES as SAMZA_MESSAGE_TYPES, sspKeyJson, parseSspKey } from './managers.js';
export { parseJobFile, type JobFile } from './job-file.js';

// Deprecated since 0.2.0: internals of the planner (calculateJobModel and SamzaConfig read the
// config; sspGrouperProxy applies the hash mapper; jobModelJsonBytes is the one streamed writer).
export {
  /** @deprecated since 0.2.0: internal config readers; calculateJobModel reads the config, SamzaConfig#get reads a key */
  broadcastSsps,
  /** @deprecated since 0.2.0: internal config readers; calculateJobModel reads the config, SamzaConfig#get reads a key */
  inputStreams,
  /** @deprecated since 0.2.0: internal config readers; calculateJobModel reads the config, SamzaConfig#get reads a key */
  allInputStreams,
  /** @deprecated since 0.2.0: internal config readers; calculateJobModel reads the config, SamzaConfig#get reads a key */
  readSettings,
} from './config.js';
export {
  /** @deprecated since 0.2.0: a step of sspGrouperProxy; call sspGrouperProxy */
  hashMapperPreviousSsp,
} from './samza-proxy.js';
export {
  /** @deprecated since 0.2.0: use jobModelJsonBytes (the same text as UTF-8 pieces) or jobModelJson */
  jobModelJsonChunks,
} from './job-model.js';
export type {
  /** @deprecated since 0.2.0: the former name of CoordinatorStoreReader (which writes with commit) */
  CoordinatorStoreLike,
} from './store-types.js';
