// Everything the platformatic adapter takes from the group planner, in one place: the planner
// (src/group/sticky/), and the wire protocol and the assigner's constants, which it shares with the
// KafkaJS adapter (src/kafkajs/sticky/) so that one group can mix both clients. Nothing here knows
// @platformatic/kafka.
export { planGroup, type CoPartitionGroup, type CoPartitionReport, type GrowthReport, type Plan, type PlanMember, type PlanReport, type PlanTopic } from '../group/sticky/plan.js';
export { ClaimArena, decodeAssignment, decodeAssignmentNote, decodeClaims, encodeClaims, type Claims } from '../group/protocol.js';
export { STICKY_ASSIGNER_NAME, STICKY_ASSIGNER_VERSION } from '../kafkajs/sticky/assigner.js';
