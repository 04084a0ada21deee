// Samza's per-task records, one list: each type the cycle keeps one record per task in, the field
// of its value, how a stored value is read and how a value is written. The list drives reading
// (the store's task table, or the types one by one), comparing (a stored record holds the text
// `write` makes) and writing (taskRecord). A new per-task field is a new entry here.
import type { TaskMode } from './model.js';
import type { StoreRecord } from './store-types.js';
import { field, singleFields, storedInt, TYPES, type TypeReads } from './managers.js';

export interface TaskField<V> {
  /** The message type (key: the task name). */
  readonly type: string;
  /** The one field of Samza's value: { [field]: "<text>" }. */
  readonly field: string;
  /** The planner's value of a stored field (a string, or another JSON value in a record of another shape); undefined: skipped, as Samza skips it. Throws Samza's error for a damaged value. */
  parse(raw: unknown, task: string): V | undefined;
  /** The text stored for a value. */
  write(v: V): string;
}

const changelog: TaskField<number> = {
  type: TYPES.changelog,
  field: 'Partition',
  // ChangelogStreamManager.readPartitionMapping: blank values skipped.
  parse: (raw, task) => (raw === undefined || raw === null || String(raw).trim() === '' ? undefined : storedInt(raw, TYPES.changelog, task, 0)),
  write: (p) => String(p),
};

const container: TaskField<string> = {
  type: TYPES.taskContainer,
  field: 'containerId',
  parse: (raw) => (typeof raw === 'string' ? raw : undefined),
  write: (id) => id,
};

const mode: TaskField<TaskMode> = {
  type: TYPES.taskMode,
  field: 'taskMode',
  parse: (raw) => (raw === 'Active' || raw === 'Standby' ? raw : undefined),
  write: (m) => m,
};

/** The per-task fields by name. */
export const TASK_FIELDS = { changelog, container, mode } as const;

/** The per-task fields in the order the store's task table is asked for them. */
export const TASK_FIELD_LIST: ReadonlyArray<TaskField<unknown>> = [changelog, container, mode] as ReadonlyArray<TaskField<unknown>>;

/** The record storing task `task`'s value (null: a tombstone). */
export function taskRecord<V>(f: TaskField<V>, task: string, v: V | null): StoreRecord {
  return { type: f.type, key: task, value: v === null ? null : { [f.field]: f.write(v) } };
}

/** One per-task type read the Map way: task -> value, records `parse` skips left out (single-field records read without an object each). */
export function readTaskField<V>(store: TypeReads, f: TaskField<V>): Map<string, V> {
  const out = new Map<string, V>();
  const fast = singleFields(store, f.type, f.field);
  if (fast !== undefined) {
    for (const [task, text] of fast) {
      const v = f.parse(text, task);
      if (v !== undefined) out.set(task, v);
    }
    return out;
  }
  for (const [task, value] of store.entries(f.type)) {
    const v = f.parse(field(value, f.field), task);
    if (v !== undefined) out.set(task, v);
  }
  return out;
}
