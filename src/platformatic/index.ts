// `assignor/platformatic`: adapters for @platformatic/kafka (an optional peer dependency). Thin:
// they translate @platformatic/kafka's shapes into calls of hashing/ and the group planner; no
// algorithm lives here. The package root does not import this entry.
export { createJavaCompatiblePartitioner, DEFAULT_BATCH_SIZE, type PartitionerOptions } from './partitioner.js';
export { createStickyAssigner, type ConsumerLike, type StickyAssigner, type StickyGroupOptions } from './assigner.js';
export type { StickyAssignerOptions, StickyAssignmentReport } from './options.js';
export { STICKY_ASSIGNER_NAME, STICKY_ASSIGNER_VERSION } from './group-core.js';
