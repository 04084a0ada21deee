// Moved to src/group/sticky/plan.ts (the planner is client-neutral); this re-export keeps old
// imports working for one release.
export * from '../../group/sticky/plan.js';
