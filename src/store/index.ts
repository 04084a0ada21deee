/// <reference types="node" preserve="true" />
// Node-only (files, Kafka): types need @types/node, declared as an optional peer dependency.
// Public API of src/store: the coordinator-store interface and its embedded (file) backend.
// Names carry a Coordinator/STORE prefix so they read unambiguously next to the root's exports.
export {
  CoordinatorStore,
  LOG_FILE as STORE_LOG_FILE,
  LOCK_FILE as STORE_LOCK_FILE,
  AUTO_COMPACT_MIN_BYTES as STORE_AUTO_COMPACT_MIN_BYTES,
  type StoreOptions as CoordinatorStoreOptions,
  type StoreRecord as CoordinatorStoreRecord,
  type OpenReport as CoordinatorStoreOpenReport,
  type CompactResult,
} from './coordinator-store.js';
export type {
  CoordinatorStoreBackend,
  SspRows as CoordinatorSspRows,
  SspAssignment as CoordinatorSspAssignment,
  TaskTable as CoordinatorTaskTable,
  SharedFields as CoordinatorSharedFields,
  StoreStats as CoordinatorStoreStats,
} from './backend.js';
// A backend's taskTable and listTexts hand out Texts; ArrayTexts makes one from strings.
export { ArrayTexts as CoordinatorArrayTexts, type Texts as CoordinatorTexts } from './texts.js';
export {
  MessageType as CoordinatorMessageType,
  KEY_VERSION as COORDINATOR_KEY_VERSION,
  SAMZA_SOURCE as COORDINATOR_SOURCE,
  encodeKey as encodeCoordinatorKey,
  decodeKey as decodeCoordinatorKey,
  type Envelope as CoordinatorEnvelope,
} from './messages.js';
export { MAGIC as STORE_MAGIC, FORMAT_VERSION as STORE_FORMAT_VERSION } from './format.js';
export { KafkaCoordinatorStore, type KafkaStoreOptions, type KafkaOpenReport } from './kafka-store.js';
export { samzaCoordinatorTopic } from './kafka-location.js';
/** @deprecated Use `CoordinatorStore`, the same class; this second name goes in the next release. */
export { CoordinatorStore as FileCoordinatorStore } from './coordinator-store.js';
