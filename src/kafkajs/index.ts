// `assignor/kafkajs`: adapters for KafkaJS (an optional peer dependency). Thin: they translate
// KafkaJS's shapes into calls of hashing/ and the engine; no algorithm lives here.
export {
  JavaCompatiblePartitioner,
  createJavaCompatiblePartitioner,
  partitionMessages,
  type KeyEncoding,
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
export type { CoPartitionGroup, CoPartitionReport, GrowthReport } from '../group/sticky/plan.js';
