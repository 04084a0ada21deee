// Public API of src/channels: partition sets for parallel consumer channels.
export {
  planChannels,
  planTopics,
  channelOfPartition,
  channelPartitions,
  javaStringHashCode,
  flinkStartIndex,
  formatRanges,
  MAX_PLAN_PARTITIONS,
  MAX_WIDTH,
  STRATEGIES,
  type ChannelPlan,
  type PlanOptions,
  type TopicsPlanOptions,
  type Strategy,
  type PlanStrategy,
} from './plan.js';
export { validatePlan, reportJsonText, REPORT_FORMAT, type ValidationReport } from './validate.js';
export { expandPlan, type Expansion, type ExpandOptions } from './expand.js';
export { rewidthPlan, type Rewidth, type RewidthOptions, type WidthProposal } from './rewidth.js';
export { emitSpl, MAX_FORM_ARITY, type SplOptions, type ConsistentTrigger } from './spl.js';
export {
  planToJson,
  planJsonText,
  readPlan,
  PLAN_FORMAT,
  PLAN_VERSION,
  type PlanJson,
  type PlanInput,
  type PlanLike,
  type PlanJsonInput,
  type ChannelJson,
} from './json.js';
export { planTable, reportTable } from './table.js';
