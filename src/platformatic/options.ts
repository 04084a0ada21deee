// The sticky assigner's options, checked once at creation: the planner's as every entry point
// takes them (src/group/sticky-options.ts), plus this adapter's growthCheckMs.
import { INT32_MAX } from '../basics.js';
import { AssignorError, describe } from '../errors.js';
import { checkAssignerOptions, type CheckedAssignerOptions, type StickyAssignerOptions as BaseOptions } from '../group/sticky-options.js';

export type { StickyAssignmentReport } from '../group/sticky-options.js';

export interface StickyAssignerOptions extends BaseOptions {
  /**
   * Milliseconds between checks for subscribed topics that gained partitions; when one did, the
   * consumer joins again so that the group assigns them (@platformatic/kafka does not). 0: never.
   * Default 30000.
   */
  growthCheckMs?: number;
}

export interface Config extends CheckedAssignerOptions {
  growthCheckMs: number;
}

/** Throws AssignorError (E_INPUT, E_RANGE) for a bad option. */
export function checkOptions(options: StickyAssignerOptions): Config {
  const checked = checkAssignerOptions(options);
  const growthCheckMs = options.growthCheckMs ?? 30_000;
  if (typeof growthCheckMs !== 'number' || !Number.isInteger(growthCheckMs) || growthCheckMs < 0 || growthCheckMs > INT32_MAX) {
    throw new AssignorError('E_RANGE', `growthCheckMs must be an integer in [0, 2147483647] (0: never check), got ${describe(growthCheckMs)}`, 'options.growthCheckMs');
  }
  return { ...checked, growthCheckMs };
}
