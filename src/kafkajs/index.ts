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
