// Public API of src/standby: rack-aware standby placement (KIP-708).
export { placeStandbys, placeCluster, askedFor, type PlaceOptions, type StandbyPlacement, type PlacementTotals, type AssignorName, type Mode } from './place.js';
export { type ClusterSpec, type ClientSpec, type Cluster, type Client } from './input.js';
export { normalizeCluster } from './normalize.js';
export {
  parseStreamsProperties,
  type StreamsStandbyConfig,
  type PropertiesLike,
} from './properties.js';
export { parseTaskId, formatTaskId, type TaskId } from './task-id.js';
export { compareProcessKeys, type ProcessKey } from './process-id.js';
export { javaHashMapOrder } from './hash-order.js';
export type { Level, TaskLevel } from './levels.js';
export { type PlacementReport, type TaskReport, type ClientReport, type StandbyReport } from './report.js';
export { explainText } from './explain.js';
export { htmlReport } from './html-report.js';
export { placeStandbysColumnar, columnarOf, type ColumnarCluster, type ColumnarPlacement } from './columnar.js';
