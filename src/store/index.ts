// Public API of src/store: the embedded coordinator stream store.
export {
  CoordinatorStore,
  LOG_FILE,
  LOCK_FILE,
  type StoreOptions,
  type StoreRecord,
  type OpenReport,
} from './coordinator-store.js';
export { MessageType, KEY_VERSION, SAMZA_SOURCE, encodeKey, decodeKey, type Envelope } from './messages.js';
export { MAGIC as STORE_MAGIC, FORMAT_VERSION as STORE_FORMAT_VERSION } from './format.js';
