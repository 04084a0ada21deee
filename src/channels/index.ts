// Public API of src/channels: partition sets for parallel consumer channels.
export {
  planChannels,
  planTopics,
  channelOfPartition,
  channelPartitions,
  type ChannelPlan,
  type PlanOptions,
  type TopicsPlanOptions,
} from './plan.js';
export { validatePlan, type ValidationReport } from './validate.js';
export { expandPlan, type Expansion, type ExpandOptions } from './expand.js';
export { rewidthPlan, type RewidthOptions } from './rewidth.js';
export { emitSpl, MAX_FORM_ARITY, type SplOptions } from './spl.js';
export {
  planToJson,
  type PlanJson,
  type PlanLike,
  type PlanJsonInput,
  type ChannelJson,
} from './json.js';

// Deprecated since 0.2.0 (CHANGELOG.md): each stays for this release and leaves in the next.
export {
  /** @deprecated since 0.2.0: internal to the flink strategy (Java's String.hashCode); planChannels applies it */
  javaStringHash as javaStringHashCode,
} from '../basics.js';
export {
  /** @deprecated since 0.2.0: the CLI's writer of a validation report; JSON.stringify the report, or run `assignor channels validate` */
  reportJsonText,
} from './validate.js';
