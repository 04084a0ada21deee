// Public API of src/standby: rack-aware standby placement (KIP-708).
export { placeStandbys, type PlaceOptions, type StandbyPlacement, type Mode } from './place.js';
export { type ClusterSpec, type Cluster } from './input.js';
export { normalizeCluster } from './normalize.js';
export {
  parseStreamsProperties,
  type StreamsStandbyConfig,
  type PropertiesLike,
} from './properties.js';
export { parseTaskId, formatTaskId, type TaskId } from './task-id.js';
export { javaHashMapOrder } from './hash-order.js';
export { type PlacementReport, type StandbyReport } from './report.js';
export { explainText } from './explain.js';
export { htmlReport } from './html-report.js';

// Deprecated since 0.2.0 (CHANGELOG.md): each stays for this release and leaves in the next.
export {
  /** @deprecated since 0.2.0: placeStandbys takes a normalized Cluster too (the mode is `options.mode`) */
  placeCluster,
} from './place.js';
export {
  /** @deprecated since 0.2.0: internal helpers of placement and its report */
  askedFor,
} from './place.js';
export {
  /** @deprecated since 0.2.0: internal helpers of placement and its report */
  compareProcessKeys,
} from './process-id.js';
