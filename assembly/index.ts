// The exported kernel surface. Pointer ABI only: the TypeScript engine owns
// the arena (reset per call) and passes flat arrays in linear memory.
export { alloc, reset, simdEnabled } from './arena';
export { foldPartitions } from './fold';
export * from './channels';
export * from './standby';
export * from './simd-exports';
export * from './samza-proxy';
export { groupPlan } from './group-plan';
export { streamsActives } from './streams';
export { streamsSpread } from './streams-spread';
