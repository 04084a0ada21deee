// Public API of src/samza: Samza job models with partition expansion (SEP-5).
export { SamzaError, type SamzaExceptionType } from './errors.js';
export {
  ssp,
  type SSP,
  type SspInput,
  type SystemStream,
  type TaskMode,
  type TaskModel,
  type ContainerModel,
  type TaskGrouping,
} from './model.js';
export { type MapInput } from './inputs.js';
export { SamzaConfig, type ConfigInput, broadcastSsps, inputStreams, allInputStreams, readSettings, type JobSettings } from './config.js';
export { GroupByPartition, GroupBySystemStreamPartition, AllSspToSingleTaskGrouper, createSspGrouper, type SspGrouper } from './groupers.js';
export { hashMapperPreviousSsp, sspGrouperProxy } from './samza-proxy.js';
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
  type JobInput,
  type JobSpec,
  type JobModelPlan,
  type MapperMode,
  type PlanOptions as SamzaPlanOptions,
  type PreviousState,
  type PreviousInput,
  type StreamReport,
} from './plan.js';
export { previousRowsOfGrouping, type PreviousRows } from './previous.js';
export { toJobModel, jobModelJson, jobModelJsonBytes, jobModelJsonChunks, type JobModel } from './job-model.js';
export { runCycle, type CycleResult, type Changes } from './cycle.js';
export type { CoordinatorStoreReader, SyncCoordinatorStore, TaskTableSpec, CoordinatorStoreLike } from './store-types.js';
export { TYPES as SAMZA_MESSAGE_TYPES, sspKeyJson, parseSspKey } from './managers.js';
export { parseJobFile, type JobFile } from './job-file.js';
