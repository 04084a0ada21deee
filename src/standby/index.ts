// Public API of src/standby: rack-aware standby placement (KIP-708).
export { placeStandbys, placeCluster, askedFor, type PlaceOptions, type StandbyPlacement, type PlacementTotals, type AssignorName, type Mode } from './place.js';
export { type ClusterSpec, type ClientSpec, type Cluster, type Client } from './input.js';
export { normalizeCluster } from './normalize.js';
export {
  parseStreamsProperties,
  validateRackAwareness,
  toPropertyMap,
  CLIENT_TAG_PREFIX,
  RACK_AWARE_ASSIGNMENT_TAGS_CONFIG,
  NUM_STANDBY_REPLICAS_CONFIG,
  type StreamsStandbyConfig,
  type PropertiesLike,
} from './properties.js';
export { parseTaskId, formatTaskId, compareTaskIds, taskIdHashCode, type TaskId } from './task-id.js';
export { processKey, compareProcessKeys, isUuid, type ProcessKey } from './process-id.js';
export { javaHashMapOrder } from './hash-order.js';
export { levelOf, lowerLevel, levelRank, LEVELS, type Level, type TaskLevel } from './levels.js';
export { buildReport, type PlacementReport, type TaskReport, type ClientReport, type StandbyReport } from './report.js';
export { explainText, explainLines } from './explain.js';
export { htmlReport, HTML_MAX_TASKS } from './html-report.js';
export { placeStandbysColumnar, columnarOf, type ColumnarCluster, type ColumnarPlacement } from './columnar.js';
