// Public API of src/channels: partition sets for parallel consumer channels.
export {
  planChannels,
  planTopics,
  channelOfPartition,
  channelPartitions,
  javaStringHashCode,
  type ChannelPlan,
  type PlanOptions,
  type TopicsPlanOptions,
  type Strategy,
  type PlanStrategy,
} from './plan.js';
export { validatePlan, reportJsonText, type ValidationReport } from './validate.js';
export { expandPlan, type Expansion, type ExpandOptions } from './expand.js';
export { rewidthPlan, type Rewidth, type RewidthOptions, type WidthProposal } from './rewidth.js';
export { emitSpl, MAX_FORM_ARITY, type SplOptions, type ConsistentTrigger } from './spl.js';
export {
  planToJson,
  type PlanJson,
  type PlanInput,
  type PlanLike,
  type PlanJsonInput,
  type ChannelJson,
} from './json.js';
