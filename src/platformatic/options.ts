// The sticky assigner's options, checked once at creation. The same options and rules as the
// KafkaJS StickyAssigner's (src/kafkajs/sticky/assigner.ts, which does not export its checker).
import { AssignorError, describe } from '../errors.js';
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

function checkGroups(groups: unknown): CoPartitionGroup[] {
  if (!Array.isArray(groups)) throw new AssignorError('E_INPUT', `coPartitioned must be an array of { name, topics }, got ${describe(groups)}`, 'options.coPartitioned');
  const names = new Set<string>();
  const topicGroup = new Map<string, string>();
  return groups.map((g: unknown, i) => {
    const where = `options.coPartitioned[${i}]`;
    const { name, topics } = (g ?? {}) as { name?: unknown; topics?: unknown };
    if (typeof name !== 'string' || name === '') throw new AssignorError('E_INPUT', `a co-partitioned group needs a non-empty name, got ${describe(name)}`, `${where}.name`);
    if (names.has(name)) throw new AssignorError('E_INPUT', `co-partitioned group name ${describe(name)} is used twice`, `${where}.name`);
    names.add(name);
    if (!Array.isArray(topics) || topics.length < 2) throw new AssignorError('E_INPUT', `co-partitioned group ${describe(name)} needs at least two topics, got ${describe(topics)}`, `${where}.topics`);
    topics.forEach((t: unknown, k) => {
      if (typeof t !== 'string' || t === '') throw new AssignorError('E_INPUT', `a topic name must be a non-empty string, got ${describe(t)}`, `${where}.topics[${k}]`);
      const other = topicGroup.get(t);
      if (other !== undefined) throw new AssignorError('E_INPUT', `topic ${describe(t)} is in co-partitioned groups ${describe(other)} and ${describe(name)}; a topic can be in one group only`, `${where}.topics[${k}]`);
      topicGroup.set(t, name);
    });
    return { name, topics: [...(topics as string[])] };
  });
}

/** Throws AssignorError (E_INPUT, E_RANGE) for a bad option. */
export function checkOptions(options: StickyAssignerOptions): Config {
  if (options === null || typeof options !== 'object') throw new AssignorError('E_INPUT', `options must be an object, got ${describe(options)}`, 'options');
  const rackId = options.rackId;
  if (rackId !== undefined && rackId !== null && typeof rackId !== 'string') throw new AssignorError('E_INPUT', `rackId must be a string, got ${describe(rackId)}`, 'options.rackId');
  const growthSkew = options.growthSkew ?? 2;
  if (typeof growthSkew !== 'number' || Number.isNaN(growthSkew) || growthSkew < 1) {
    throw new AssignorError('E_RANGE', `growthSkew must be a number >= 1 (Infinity: always keep keys), got ${describe(growthSkew)}`, 'options.growthSkew');
  }
  const coPartitioned = checkGroups(options.coPartitioned ?? []);
  if (options.onAssignment !== undefined && typeof options.onAssignment !== 'function') throw new AssignorError('E_INPUT', 'onAssignment must be a function', 'options.onAssignment');
  const growthCheckMs = options.growthCheckMs ?? 30_000;
  if (typeof growthCheckMs !== 'number' || !Number.isInteger(growthCheckMs) || growthCheckMs < 0 || growthCheckMs > 2147483647) {
    throw new AssignorError('E_RANGE', `growthCheckMs must be an integer in [0, 2147483647] (0: never check), got ${describe(growthCheckMs)}`, 'options.growthCheckMs');
  }
  return { rack: rackId === undefined || rackId === null || rackId === '' ? null : rackId, coPartitioned, growthSkew, onAssignment: options.onAssignment, growthCheckMs, engine: options.engine };
}
