// Samza's per-task records, one list: each type the cycle keeps one record per task in, the field
// of its value, how a stored value is read and how a value is written (its text, and the value
// object holding it). The list drives reading
// (the store's task table, or the types one by one), comparing (a stored record holds the text
// `write` makes) and writing (taskRecord). A new per-task field is a new entry here.
import type { TaskMode } from './model.js';
import type { StoreRecord } from './store-types.js';
import { storedInt, TYPES } from './managers.js';

export interface TaskField<V> {
  /** The message type (key: the task name). */
  readonly type: string;
  /** The one field of Samza's value: { [field]: "<text>" }. */
  readonly field: string;
  /** The planner's value of a stored field (a string, or another JSON value in a record of another shape); undefined: skipped, as Samza skips it. Throws Samza's error for a damaged value. */
  parse(raw: unknown, task: string): V | undefined;
  /** The text stored for a value. */
  write(v: V): string;
  /**
   * Samza's value holding a text: `{ [field]: text }` spelled as a literal, so a million records
   * share one object shape (a computed key cost a fifth more time and memory on a first plan).
   */
  value(text: string): Record<string, string>;
}

const changelog: TaskField<number> = {
  type: TYPES.changelog,
  field: 'Partition',
  // ChangelogStreamManager.readPartitionMapping: blank values skipped.
  parse: (raw, task) => (raw === undefined || raw === null || String(raw).trim() === '' ? undefined : storedInt(raw, TYPES.changelog, task, 0)),
  write: (p) => String(p),
  value: (text) => ({ Partition: text }),
};

const container: TaskField<string> = {
  type: TYPES.taskContainer,
  field: 'containerId',
  parse: (raw) => (typeof raw === 'string' ? raw : undefined),
  write: (id) => id,
  value: (text) => ({ containerId: text }),
};

const mode: TaskField<TaskMode> = {
  type: TYPES.taskMode,
  field: 'taskMode',
  parse: (raw) => (raw === 'Active' || raw === 'Standby' ? raw : undefined),
  write: (m) => m,
  value: (text) => ({ taskMode: text }),
};

/** The per-task fields by name. */
export const TASK_FIELDS = { changelog, container, mode } as const;

/** The per-task fields in the order the store's task table is asked for them. */
export const TASK_FIELD_LIST: ReadonlyArray<TaskField<unknown>> = [changelog, container, mode] as ReadonlyArray<TaskField<unknown>>;

/** The record storing task `task`'s value (null: a tombstone). */
export function taskRecord<V>(f: TaskField<V>, task: string, v: V | null): StoreRecord {
  return { type: f.type, key: task, value: v === null ? null : f.value(f.write(v)) };
}
