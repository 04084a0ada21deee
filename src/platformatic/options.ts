// The sticky assigner's options, checked once at creation: the planner's as every entry point
// takes them (src/group/sticky-options.ts), plus this adapter's growthCheckMs.
import { AssignorError, describe } from '../errors.js';
import { checkRackId, checkStickyOptions } from '../group/sticky-options.js';
import type { EngineChoice } from '../engine/kernels.js';
import type { CoPartitionGroup, PlanReport } from './group-core.js';

export interface StickyAssignmentReport extends PlanReport {
  /** The generation this assignment is for (the consumer's, from the JoinGroup answer), when attached. */
  generation: number | null;
  /** Wall time of the assignment on the leader. */
  ms: number;
}

export interface StickyAssignerOptions {
  /** This consumer's rack; pass the same value as the consumer's `clientRack`. Members in a rack holding a replica are preferred. */
  rackId?: string | null;
  /** Named sets of topics whose partition p always goes to one member (same partition count and subscribers required). */
  coPartitioned?: readonly CoPartitionGroup[];
  /** After a topic grows from B to k*B, keep every key when no member then holds more than growthSkew x its share. Default 2. */
  growthSkew?: number;
  /** Called on the leader after every assignment (tests, metrics, logs). */
  onAssignment?: (report: StickyAssignmentReport) => void;
  /**
   * Milliseconds between checks for subscribed topics that gained partitions; when one did, the
   * consumer joins again so that the group assigns them (@platformatic/kafka does not). 0: never.
   * Default 30000.
   */
  growthCheckMs?: number;
  engine?: EngineChoice;
}

export interface Config {
  rack: string | null;
  coPartitioned: CoPartitionGroup[];
  growthSkew: number;
  onAssignment: ((report: StickyAssignmentReport) => void) | undefined;
  growthCheckMs: number;
  engine: EngineChoice | undefined;
}

/** Throws AssignorError (E_INPUT, E_RANGE) for a bad option. */
export function checkOptions(options: StickyAssignerOptions): Config {
  const plan = checkStickyOptions(options);
  const rack = checkRackId(options.rackId);
  if (options.onAssignment !== undefined && typeof options.onAssignment !== 'function') throw new AssignorError('E_INPUT', 'onAssignment must be a function', 'options.onAssignment');
  const growthCheckMs = options.growthCheckMs ?? 30_000;
  if (typeof growthCheckMs !== 'number' || !Number.isInteger(growthCheckMs) || growthCheckMs < 0 || growthCheckMs > 2147483647) {
    throw new AssignorError('E_RANGE', `growthCheckMs must be an integer in [0, 2147483647] (0: never check), got ${describe(growthCheckMs)}`, 'options.growthCheckMs');
  }
  return { rack, ...plan, onAssignment: options.onAssignment, growthCheckMs };
}
