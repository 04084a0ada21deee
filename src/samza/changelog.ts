// Changelog partitions are stable: a task keeps the partition it had, and
// unseen tasks take max+1, max+2, ... in task-name order.
import { INT32_MAX } from '../basics.js';
import { AssignorError } from '../errors.js';
import { toMap, VALUES, type MapInput } from './inputs.js';
import { ColumnMap } from './task-columns.js';
import { ArrayTexts, type Texts } from '../columns/texts.js';
import { MessageType } from '../coordinator-stream/messages.js';

/**
 * `tasks` sorted by name; returns each task's changelog partition. `hint` (optional): per task, the
 * row of a ColumnMap to look at first.
 */
export function assignChangelogPartitions(tasks: readonly string[], existingInput: MapInput<number>, hint?: Int32Array): Int32Array {
  return changelogPartitionsOf(new ArrayTexts(tasks), existingInput, hint);
}

/** assignChangelogPartitions over names read in place (a grouping's names): a ColumnMap compares them with its keys where they lie. */
export function changelogPartitionsOf(names: Texts, existingInput: MapInput<number>, hint?: Int32Array): Int32Array {
  const existing = existingInput instanceof Map || existingInput instanceof ColumnMap ? (existingInput as ReadonlyMap<string, number>) : toMap(existingInput, 'changelog', VALUES.int(0));
  let max = -1;
  for (const p of existing.values()) if (p > max) max = p;
  const columns = hint !== undefined && existing instanceof ColumnMap ? existing : undefined;
  const out = new Int32Array(names.length);
  for (let i = 0; i < out.length; i++) {
    const p = columns !== undefined ? columns.getNamed(names, i, hint![i]!) : existing.get(names.at(i));
    if (p === undefined && max >= INT32_MAX) {
      throw new AssignorError('E_SAMZA_CHANGELOG', `no changelog partition left for new task ${JSON.stringify(names.at(i))}: the stored mapping already uses partition 2147483647`, MessageType.Changelog);
    }
    out[i] = p !== undefined ? p : ++max;
  }
  return out;
}

/** Samza's updatePartitionMapping: the new mapping overlaid with the previous one, previous entries winning. */
export function mergeChangelogMappings(previous: MapInput<number>, fresh: MapInput<number>): Map<string, number> {
  const out = new Map(toMap(fresh, 'fresh', VALUES.int(0)));
  for (const [t, p] of toMap(previous, 'previous', VALUES.int(0))) out.set(t, p);
  return out;
}
