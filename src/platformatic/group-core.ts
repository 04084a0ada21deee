// Everything the platformatic adapter takes from the group planner, in one place: the planner
// (src/group/sticky/), and the wire protocol with the assigner's constants (src/group/protocol.ts), which it
// shares with the KafkaJS adapter (src/kafkajs/sticky/) so that one group can mix both clients. Nothing here knows
// @platformatic/kafka.
export { planGroup, type CoPartitionGroup, type CoPartitionReport, type GrowthReport, type Plan, type PlanMember, type PlanReport, type PlanTopic } from '../group/sticky/plan.js';
export { ClaimArena, decodeAssignment, decodeAssignmentNote, decodeClaims, encodeClaims, STICKY_ASSIGNER_NAME, STICKY_ASSIGNER_VERSION, type Claims } from '../group/protocol.js';
export { claimsOf, completeClaims, leaderNote, nextHolding, planMember, planTopic, rememberPlan, type Holding, type HoldingRun, type Note } from '../group/claims.js';
