// `assignor/kafkajs`: adapters for KafkaJS (an optional peer dependency). Thin: they translate
// KafkaJS's shapes into calls of hashing/ and the engine; no algorithm lives here. The types these
// name from other rooms are exported there (CoPartitionGroup by assignor/group; the report's parts
// are GroupReport['growth'] and ['coPartitioned']), as assignor/platformatic does.
export {
  JavaCompatiblePartitioner,
  createJavaCompatiblePartitioner,
  partitionMessages,
  type PartitionerOptions,
  type PartitionMessagesOptions,
} from './partitioner.js';
export {
  StickyAssigner,
  createStickyAssigner,
  STICKY_ASSIGNER_NAME,
  STICKY_ASSIGNER_VERSION,
  type StickyAssignerOptions,
  type StickyAssignmentReport,
} from './sticky/assigner.js';
