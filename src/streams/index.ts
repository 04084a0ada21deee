// Public API of src/streams: a Kafka Streams group's assignment (KIP-1071 streams groups, issue 31).
export { assignStreams } from './assign.js';
export type { StreamsGroupSpec, StreamsProcessSpec, StreamsMemberSpec, StreamsSubtopologySpec } from './input.js';
export type { StreamsAssignment, StreamsOptions, StreamsMode, StreamsReport, StreamsTotals, StreamsMemberAssignment } from './assignment.js';
