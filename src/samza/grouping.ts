// The flat form of an SSP -> task grouping: task names plus one row per
// (task, SSP) membership in typed arrays, so 10 million SSPs cost four
// Int32Arrays rather than 10 million objects. Both mapper modes end here.
import { ArrayTexts, type Texts } from '../columns/texts.js';
import { ssp, SspSet, type SSP, type SystemStream } from './model.js';

export interface Grouping {
  /** Streams referenced by the rows, sorted by (system, stream): row stream index = position. */
  streams: SystemStream[];
  /**
   * Task names sorted in Java String order; row task index = position. When the planner kept the
   * names as bytes (taskNames), the strings are made on the first read of this field.
   */
  tasks: string[];
  /**
   * taskStart[t] .. taskStart[t+1] are task t's positions; position k is row order[k].
   * Each task's rows are in SSP order. (A permutation instead of moved rows: one scatter, not three.)
   */
  taskStart: Int32Array;
  order: Int32Array;
  /** Per row, in the order rows were produced. */
  stream: Int32Array;
  partition: Int32Array;
  /** null when every row has keyBucket -1. */
  bucket: Int32Array | null;
  /** SSPs that belong to every task besides its rows (broadcast inputs, flat path only). */
  everyTask: SSP[];
}

/**
 * Groupings whose names the planner made as one byte column, until their `tasks` is first read.
 * Kept beside the grouping, not in it: a copy (`{ ...g, tasks }`) is a grouping of its own, read by
 * its `tasks`.
 */
const byteNames = new WeakMap<Grouping, Texts>();

/**
 * A grouping over `names`: strings as given, or bytes whose strings are made on the first read of
 * `tasks`. From that read on, the strings are the names (whoever holds the array may change it, or
 * assign another), and the bytes are let go. Fields keep their order (`tasks` second).
 */
export function withNames(fields: Omit<Grouping, 'tasks'>, names: string[] | Texts): Grouping {
  const { streams, taskStart, order, stream, partition, bucket, everyTask } = fields;
  if (Array.isArray(names)) return { streams, tasks: names, taskStart, order, stream, partition, bucket, everyTask };
  let made: string[] | undefined;
  // Built field by field, `tasks` as an accessor in second place: an object literal with
  // accessors, or a property redefined later, would be one of V8's slow dictionary-mode objects,
  // and the planner's loops read these fields per row.
  const g = { streams } as Grouping;
  Object.defineProperty(g, 'tasks', {
    enumerable: true,
    configurable: true,
    get: (): string[] => {
      if (made === undefined) {
        made = names.toArray();
        byteNames.delete(g);
      }
      return made;
    },
    set: (v: string[]) => {
      made = v;
      byteNames.delete(g);
    },
  });
  g.taskStart = taskStart;
  g.order = order;
  g.stream = stream;
  g.partition = partition;
  g.bucket = bucket;
  g.everyTask = everyTask;
  byteNames.set(g, names);
  return g;
}

/**
 * The grouping's task names, read in place: the byte column the planner made (no string made), or
 * its `tasks`. Hot paths read names through this, once per grouping.
 */
export function taskNames(g: Grouping): Texts {
  return byteNames.get(g) ?? new ArrayTexts(g.tasks);
}

/** Whether the names are the planner's byte column: sorted and distinct as made. */
export function namesAreBytes(g: Grouping): boolean {
  return byteNames.has(g);
}

/** SSP at position k of the task-ordered rows (builds an object: for output and tests, not hot paths). */
export function rowSsp(g: Grouping, k: number): SSP {
  const i = g.order[k]!;
  const s = g.streams[g.stream[i]!]!;
  return ssp(s.system, s.stream, g.partition[i]!, g.bucket === null ? -1 : g.bucket[i]!);
}

/** SSPs of task t in Samza's SSP order, including the every-task SSPs. */
export function taskSsps(g: Grouping, t: number): SSP[] {
  const out: SSP[] = [];
  for (let i = g.taskStart[t]!; i < g.taskStart[t + 1]!; i++) out.push(rowSsp(g, i));
  if (g.everyTask.length === 0) return out;
  return SspSet.of([...out, ...g.everyTask]).sorted();
}

/** Rows in any order: row i is SSP (streams[stream[i]], partition[i], bucket[i], or -1 when null) in task rowTask[i]. */
export interface TaskSspRows {
  rowTask: Int32Array;
  stream: Int32Array;
  partition: Int32Array;
  bucket: Int32Array | null;
}

/**
 * Builds the flat form from rows in any task order: a stable counting sort by
 * task, so rows that arrive in SSP order stay in SSP order within each task.
 */
export function fromRows(streams: SystemStream[], tasks: string[] | Texts, rows: TaskSspRows, everyTask: SSP[] = []): Grouping {
  const { rowTask, stream, partition, bucket } = rows;
  const n = rowTask.length;
  const taskStart = new Int32Array(tasks.length + 1);
  for (let i = 0; i < n; i++) taskStart[rowTask[i]! + 1]!++;
  for (let t = 0; t < tasks.length; t++) taskStart[t + 1]! += taskStart[t]!;
  const fill = taskStart.slice(0, tasks.length);
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[fill[rowTask[i]!]!++] = i;
  return withNames({ streams, taskStart, order, stream, partition, bucket, everyTask }, tasks);
}
