/// <reference types="node" preserve="true" />
// Node-only (files, Kafka): types need @types/node, declared as an optional peer dependency.
// Public API of src/coordinator: the live coordinator loop (partition-count monitor, recompute,
// persist, events), store selection by location, and import/export of coordinator-stream state.
export {
  Coordinator,
  type CoordinatorOptions,
  type ModelEvent as CoordinatorModelEvent,
  type RefusedEvent as CoordinatorRefusedEvent,
  type ErrorInfo as CoordinatorErrorInfo,
} from './coordinator.js';
export { KafkaPartitionCounts, JobFilePartitionCounts, StaticPartitionCounts, type PartitionCountSource } from './partition-counts.js';
export { openStore, type OpenStoreOptions } from './open-store.js';
export { copyStore, writeDump, MessageDump } from './transfer.js';
