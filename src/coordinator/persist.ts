// One read/compute/write cycle against any coordinator store backend: the Samza layer computes the
// batch synchronously (runCycle over a read-only view that captures the one writeBatch), and the
// backend commits it, which for the Kafka store is a network transaction (awaited here).
import { runCycle, type CycleResult } from '../samza/cycle.js';
import type { JobInput, PlanOptions } from '../samza/plan.js';
import type { CoordinatorStoreLike, StoreRecord } from '../samza/store-types.js';
import type { CoordinatorStoreBackend, SspAssignment, SspRows } from '../store/backend.js';

/** The batch a cycle asked to write. */
export interface CapturedBatch {
  records: StoreRecord[];
  ssps: SspRows | undefined;
}

/** The store as the Samza layer reads it; its one writeBatch is captured, not written. */
class CapturingView implements CoordinatorStoreLike {
  batch: CapturedBatch | undefined;

  constructor(private readonly store: CoordinatorStoreBackend) {}

  get(type: string, key: string): unknown | undefined {
    return this.store.get(type, key);
  }

  entries(type: string): Map<string, unknown> {
    return this.store.entries(type);
  }

  sspAssignment(): SspAssignment {
    return this.store.sspAssignment();
  }

  put(): void {
    throw new Error('the cycle writes one batch only');
  }

  delete(): void {
    throw new Error('the cycle writes one batch only');
  }

  writeBatch(records: StoreRecord[], ssps?: SspRows): void {
    if (this.batch !== undefined) throw new Error('the cycle writes one batch only');
    this.batch = { records, ssps };
  }
}

/** Computes the cycle on the store's state without writing: the result and the batch it would write. */
export function computeCycle(store: CoordinatorStoreBackend, job: JobInput, options: PlanOptions = {}): { result: CycleResult; batch: CapturedBatch | undefined } {
  const view = new CapturingView(store);
  const result = runCycle(view, job, options);
  return { result, batch: view.batch };
}

/**
 * Runs Samza's read/compute/write cycle on any backend and commits its batch as one atomic write
 * (nothing when the store already holds the model). Throws what runCycle throws (planning errors,
 * nothing written) and what the backend's commit throws.
 */
export async function persistCycle(store: CoordinatorStoreBackend, job: JobInput, options: PlanOptions = {}): Promise<CycleResult> {
  const { result, batch } = computeCycle(store, job, options);
  if (batch !== undefined) await store.commit(batch.records, batch.ssps);
  return result;
}
