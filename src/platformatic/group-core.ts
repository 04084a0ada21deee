// Everything the platformatic adapter takes from the group planner, in one place. Today the
// planner, its wire protocol and the assigner's constants live in src/kafkajs/sticky/; when they
// move to src/group/, only these lines change. Nothing here knows @platformatic/kafka.
export { planGroup, type CoPartitionGroup, type CoPartitionReport, type GrowthReport, type Plan, type PlanMember, type PlanReport, type PlanTopic } from '../kafkajs/sticky/plan.js';
export { ClaimArena, decodeAssignment, decodeAssignmentNote, decodeClaims, encodeClaims, type Claims } from '../kafkajs/sticky/protocol.js';
export { STICKY_ASSIGNER_NAME, STICKY_ASSIGNER_VERSION } from '../kafkajs/sticky/assigner.js';
