// Public API of src/store: the embedded coordinator stream store.
// Helper names carry a Coordinator/STORE prefix because src/index.ts re-exports every module with `export *`.
export {
  CoordinatorStore,
  LOG_FILE as STORE_LOG_FILE,
  LOCK_FILE as STORE_LOCK_FILE,
  type StoreOptions as CoordinatorStoreOptions,
  type StoreRecord as CoordinatorStoreRecord,
  type OpenReport as CoordinatorStoreOpenReport,
} from './coordinator-store.js';
export {
  MessageType as CoordinatorMessageType,
  KEY_VERSION as COORDINATOR_KEY_VERSION,
  SAMZA_SOURCE as COORDINATOR_SOURCE,
  encodeKey as encodeCoordinatorKey,
  decodeKey as decodeCoordinatorKey,
  type Envelope as CoordinatorEnvelope,
} from './messages.js';
export { MAGIC as STORE_MAGIC, FORMAT_VERSION as STORE_FORMAT_VERSION } from './format.js';
