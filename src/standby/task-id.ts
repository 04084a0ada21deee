// Kafka Streams task ids as Kafka prints them: `<subtopology>_<partition>`.
// Order and hash follow TaskId (no named topology): subtopology first, then partition.
import { AssignorError, describe } from '../errors.js';
import { INT32_MAX } from '../basics.js';

export interface TaskId {
  readonly subtopology: number;
  readonly partition: number;
}

const TASK_ID = /^(\d{1,10})_(\d{1,10})$/;

/** Parses `0_1`; `path` names the place in the input for the error. */
export function parseTaskId(text: unknown, path: string): TaskId {
  const m = typeof text === 'string' ? TASK_ID.exec(text) : null;
  const s = m ? Number(m[1]) : NaN;
  const p = m ? Number(m[2]) : NaN;
  if (!m || s > INT32_MAX || p > INT32_MAX) {
    throw new AssignorError('E_TASK_ID', `task id must look like <subtopology>_<partition> with non-negative 32-bit integers (e.g. "0_1"), got ${describe(text)}`, path);
  }
  return { subtopology: s, partition: p };
}

/** Result of the last successful scanTaskId (scratch, so the hot loop allocates nothing). */
export const scanned = { subtopology: 0, partition: 0 };

/**
 * parseTaskId's fast path: true (and `scanned` set) exactly when parseTaskId would
 * accept `text`, without a regex match or an object per id. On false, call
 * parseTaskId for the error.
 */
export function scanTaskId(text: string): boolean {
  const n = text.length;
  if (n < 3 || n > 21) return false;
  let i = 0;
  let s = 0;
  for (; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 95) break;
    if (c < 48 || c > 57 || i === 10) return false;
    s = s * 10 + (c - 48);
  }
  if (i === 0 || i >= n - 1) return false;
  if (n - i - 1 > 10) return false;
  let p = 0;
  for (let j = i + 1; j < n; j++) {
    const c = text.charCodeAt(j);
    if (c < 48 || c > 57) return false;
    p = p * 10 + (c - 48);
  }
  if (s > INT32_MAX || p > INT32_MAX) return false;
  scanned.subtopology = s;
  scanned.partition = p;
  return true;
}

/** Subtopologies below this pack with the partition into one exact double (packTaskId). */
export const PACKED_SUBTOPOLOGY_LIMIT = 1 << 21;

/**
 * A task id as one number, subtopology * 2^32 + partition (exact below
 * PACKED_SUBTOPOLOGY_LIMIT; numeric order is TaskId order); -1 when `text` is not a
 * well-formed id or its subtopology is too large to pack. Here, beside scanTaskId and
 * `scanned`, so the caller's loop reads them without a module boundary.
 */
export function packTaskId(text: unknown): number {
  if (typeof text !== 'string' || !scanTaskId(text) || scanned.subtopology >= PACKED_SUBTOPOLOGY_LIMIT) return -1;
  return scanned.subtopology * 4294967296 + scanned.partition;
}

export function formatTaskId(t: TaskId): string {
  return `${t.subtopology}_${t.partition}`;
}

/** TaskId.compareTo: subtopology, then partition. */
export function compareTaskIds(a: TaskId, b: TaskId): number {
  return a.subtopology - b.subtopology || a.partition - b.partition;
}

/**
 * TaskId.hashCode() for a task without a named topology: Objects.hash(subtopology,
 * partition, null) = ((31 + s) * 31 + p) * 31 in Java int arithmetic.
 */
export function taskIdHashCode(t: TaskId): number {
  return taskIdHash(t.subtopology, t.partition);
}

/** taskIdHashCode of the task (subtopology, partition), for tasks kept as columns. */
export function taskIdHash(subtopology: number, partition: number): number {
  return Math.imul((Math.imul(31 + subtopology, 31) + partition) | 0, 31);
}
