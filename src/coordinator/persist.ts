// One read/compute/write cycle against any coordinator store backend: the Samza layer computes the
// batch synchronously from the store's reads (prepareCycle only reads), and the backend commits it,
// which for the Kafka store is a network transaction (awaited here).
import { prepareCycle, type CycleResult, type PreparedCycle } from '../samza/cycle.js';
import type { JobInput, PlanOptions } from '../samza/plan.js';
import type { StoreRecord } from '../samza/store-types.js';
import type { CoordinatorStoreBackend, SspRows } from '../store/backend.js';

/** The batch a cycle writes. */
export interface CapturedBatch {
  records: StoreRecord[];
  ssps: SspRows | undefined;
}

/** Computes the cycle on the store's state without writing: the result and the batch it would write (undefined: none). */
export function computeCycle(store: CoordinatorStoreBackend, job: JobInput, options: PlanOptions = {}): { result: PreparedCycle; batch: CapturedBatch | undefined } {
  const result = prepareCycle(store, job, options);
  const batch = result.records.length > 0 || result.ssps.n > 0 ? { records: result.records, ssps: result.ssps } : undefined;
  return { result, batch };
}

/**
 * Runs Samza's read/compute/write cycle on any backend and commits its batch as one atomic write
 * (nothing when the store already holds the model). Throws what the cycle throws (planning errors,
 * nothing written) and what the backend's commit throws.
 */
export async function persistCycle(store: CoordinatorStoreBackend, job: JobInput, options: PlanOptions = {}): Promise<CycleResult> {
  const { result, batch } = computeCycle(store, job, options);
  if (batch !== undefined) await store.commit(batch.records, batch.ssps);
  return { plan: result.plan, changes: result.changes, recordsWritten: result.recordsWritten, warnings: result.warnings };
}
