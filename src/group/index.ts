// `assignor/group`: consumer-group assignment as a domain of its own, framework-free and
// browser-safe. A plain-object group in (docs/group.md): on the classic protocol sticky
// (assignor's planner, the one behind assignor/kafkajs), range and round-robin (exactly Kafka's
// RangeAssignor, KIP-881 racks included, and RoundRobinAssignor); on the KIP-848 consumer
// protocol uniform and range, exactly the 4.4.0 broker's assignors.
export { assignGroup, groupAssignmentJson, GROUP_STRATEGIES, type AssignGroupOptions, type GroupAssignment, type GroupStrategy } from './assign.js';
export type { GroupMemberSpec, GroupSpec, GroupTopicSpec } from './input.js';
export type { GroupReport } from './report.js';
export type { CoPartitionGroup } from './sticky/plan.js';
export { explainGroup } from './explain.js';
export { groupHtml } from './html.js';
