// Samza's coordinator-stream managers read and written the Map way, one record at a time, as
// Samza's Java classes do: the reference the tests hold src/samza's column readers (managers.ts,
// cycle.ts) to. Only tests use them, so they live here and not in the package.
import { byCodeUnits } from '../../src/basics.js';
import { MSG, SamzaError } from '../../src/samza/errors.js';
import { field, parseCanonicalSspKey, parseSspKey, singleFields, sspKeyJson, storedInt, TYPES, type TypeReads } from '../../src/samza/managers.js';
import type { SSP, TaskMode } from '../../src/samza/model.js';
import type { CoordinatorStoreReader, StoreRecord } from '../../src/samza/store-types.js';

export interface StoredAssignment {
  /** SSP -> task names, keyed by the SSP's canonical key (sspKeyJson). */
  sspToTasks: Map<string, { ssp: SSP; tasks: string[] }>;
  /** Canonical key -> old-form keys stored for the same SSP (only SSPs that have any). */
  oldKeys: Map<string, string[]>;
}

/**
 * TaskPartitionAssignmentManager.readTaskPartitionAssignments. `entries` is
 * the type's key -> values map (read once by the caller). The canonical key
 * form wins over an old one for the same SSP.
 */
export function readTaskPartitionAssignments(store: Pick<CoordinatorStoreReader, 'entries'>, entries = store.entries(TYPES.taskPartition)): StoredAssignment {
  const sspToTasks = new Map<string, { ssp: SSP; tasks: string[] }>();
  const oldKeys = new Map<string, string[]>();
  try {
    for (const [key, v] of entries) {
      const fast = parseCanonicalSspKey(key);
      const s = fast ?? parseSspKey(key);
      const raw = field(v, 'taskNames');
      const tasks: unknown = typeof raw === 'string' ? JSON.parse(raw) : raw;
      if (!Array.isArray(tasks) || !tasks.every((t) => typeof t === 'string')) throw new Error(`taskNames of ${key} is not a list of strings`);
      const canonical = fast !== undefined ? key : sspKeyJson(s);
      if (canonical !== key) {
        const ks = oldKeys.get(canonical) ?? [];
        ks.push(key);
        oldKeys.set(canonical, ks);
        if (sspToTasks.has(canonical)) continue;
      }
      sspToTasks.set(canonical, { ssp: s, tasks: tasks as string[] });
    }
  } catch (e) {
    throw new SamzaError('E_SAMZA_STORE_READ', 'SamzaException', MSG.readAssignments, TYPES.taskPartition, e as Error);
  }
  return { sspToTasks, oldKeys };
}

export function taskPartitionRecord(s: SSP, tasks: readonly string[]): StoreRecord {
  return { type: TYPES.taskPartition, key: sspKeyJson(s), value: tasks.length === 0 ? null : { taskNames: JSON.stringify(tasks) } };
}


/** ChangelogStreamManager.readPartitionMapping: task -> partition, blank values skipped. */
export function readChangelogMapping(store: TypeReads): Map<string, number> {
  const out = new Map<string, number>();
  const fast = singleFields(store, TYPES.changelog, 'Partition');
  if (fast !== undefined) {
    for (const [task, p] of fast) if (p.trim() !== '') out.set(task, storedInt(p, TYPES.changelog, task, 0));
    return out;
  }
  for (const [task, v] of store.entries(TYPES.changelog)) {
    const p = field(v, 'Partition');
    if (p === undefined || p === null || String(p).trim() === '') continue;
    out.set(task, storedInt(p, TYPES.changelog, task, 0));
  }
  return out;
}


export function changelogRecord(task: string, partition: number | null): StoreRecord {
  return { type: TYPES.changelog, key: task, value: partition === null ? null : { Partition: String(partition) } };
}

/** TaskAssignmentManager.readTaskAssignment: task -> container id. */
export function readTaskAssignment(store: TypeReads): Map<string, string> {
  const fast = singleFields(store, TYPES.taskContainer, 'containerId');
  if (fast !== undefined) return fast;
  const out = new Map<string, string>();
  for (const [task, v] of store.entries(TYPES.taskContainer)) {
    const c = field(v, 'containerId');
    if (typeof c === 'string') out.set(task, c);
  }
  return out;
}

export function readTaskModes(store: TypeReads): Map<string, TaskMode> {
  const fast = singleFields(store, TYPES.taskMode, 'taskMode');
  if (fast !== undefined) {
    let valid = true;
    for (const m of fast.values()) if (m !== 'Active' && m !== 'Standby') valid = false;
    if (valid) return fast as Map<string, TaskMode>;
  }
  const out = new Map<string, TaskMode>();
  for (const [task, v] of store.entries(TYPES.taskMode)) {
    const m = field(v, 'taskMode');
    if (m === 'Active' || m === 'Standby') out.set(task, m);
  }
  return out;
}


/** writeTaskContainerMappings: both the container and the mode record; a null container deletes both. */
export function taskContainerRecords(task: string, containerId: string | null, mode: TaskMode): StoreRecord[] {
  return [
    { type: TYPES.taskContainer, key: task, value: containerId === null ? null : { containerId } },
    { type: TYPES.taskMode, key: task, value: containerId === null ? null : { taskMode: mode } },
  ];
}


/** previousTaskToSSPAssignment: the inversion of SSP -> [tasks], active tasks only (no mode = active). */
export function previousTaskToSsps(assignment: StoredAssignment, modes: ReadonlyMap<string, TaskMode>): Map<string, SSP[]> {
  const out = new Map<string, SSP[]>();
  for (const { ssp: s, tasks } of assignment.sspToTasks.values()) {
    for (const t of tasks) {
      if ((modes.get(t) ?? 'Active') !== 'Active') continue;
      let l = out.get(t);
      if (l === undefined) out.set(t, (l = []));
      l.push(s);
    }
  }
  return new Map([...out].sort((a, b) => byCodeUnits(a[0], b[0])));
}
