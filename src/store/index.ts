/// <reference types="node" preserve="true" />
// Node-only (files, Kafka): types need @types/node, declared as an optional peer dependency.
// Public API of src/store: the coordinator-store interface, its embedded (file) backend and its
// Kafka backend, and the coordinator-stream key codec. Names carry a Coordinator prefix so they
// read unambiguously next to the root's exports. The message types are `SAMZA_MESSAGE_TYPES` of
// 'assignor/samza', with the SSP key codec a Samza reader needs.
export {
  CoordinatorStore,
  type StoreOptions as CoordinatorStoreOptions,
  type StoreRecord as CoordinatorStoreRecord,
  type OpenReport as CoordinatorStoreOpenReport,
  type CompactResult,
} from './coordinator-store.js';
export type { CoordinatorStoreBackend, TaskTable as CoordinatorTaskTable, StoreStats as CoordinatorStoreStats } from './backend.js';
export { encodeKey as encodeCoordinatorKey, decodeKey as decodeCoordinatorKey, type Envelope as CoordinatorEnvelope } from '../coordinator-stream/messages.js';
export { KafkaCoordinatorStore, type KafkaStoreOptions } from './kafka-store.js';
export { samzaCoordinatorTopic } from './kafka-location.js';

// Deprecated since 0.2.0: names 0.1.0 exported (from the root); each stays for this release and
// leaves in the next (CHANGELOG.md).
export {
  /** @deprecated since 0.2.0: the second table of the same strings; import SAMZA_MESSAGE_TYPES from 'assignor/samza' */
  MessageType as CoordinatorMessageType,
} from '../coordinator-stream/messages.js';
export {
  /** @deprecated since 0.2.0: constants of the file format and the key codec, internal to the store */
  KEY_VERSION as COORDINATOR_KEY_VERSION,
  /** @deprecated since 0.2.0: constants of the file format and the key codec, internal to the store */
  SAMZA_SOURCE as COORDINATOR_SOURCE,
} from '../coordinator-stream/messages.js';
export {
  /** @deprecated since 0.2.0: constants of the file format, internal to the store */
  LOG_FILE as STORE_LOG_FILE,
  /** @deprecated since 0.2.0: constants of the file format, internal to the store */
  LOCK_FILE as STORE_LOCK_FILE,
} from './coordinator-store.js';
export {
  /** @deprecated since 0.2.0: constants of the file format, internal to the store */
  MAGIC as STORE_MAGIC,
  /** @deprecated since 0.2.0: constants of the file format, internal to the store */
  FORMAT_VERSION as STORE_FORMAT_VERSION,
} from './format.js';
