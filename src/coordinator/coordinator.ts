// The live coordinator: a partition-count monitor (Samza's StreamPartitionCountMonitor) that, on a
// change, recomputes the job model with the configured mapper and persists it in one write. It owns
// no assignment logic (src/samza/) and no storage format (src/store/): it decides when to run a
// cycle, and what to do when that fails.
//
//   start: read counts, run one cycle (writes nothing when the store already holds the model)
//   every interval: read counts; if they differ from the counts last acted on, run a cycle
//   a refused change (e.g. a non-multiple under the base mapper) keeps the stored model
//   a failed read or write is retried with backoff, with the newest counts
//   fencing and damaged stores stop the loop
import { EventEmitter } from 'node:events';
import { AssignorError } from '../errors.js';
import { analyzeExpansion } from '../expansion/index.js';
import { allInputStreams } from '../samza/config.js';
import { systemStreamName } from '../samza/model.js';
import type { CycleResult } from '../samza/cycle.js';
import type { JobInput, JobModelPlan, PlanOptions } from '../samza/plan.js';
import type { CoordinatorStoreBackend } from '../store/backend.js';
import type { PartitionCountSource } from './partition-counts.js';
import { computeCycle } from './persist.js';

export interface CoordinatorOptions {
  /** The job's config (its partition counts, if any, are ignored: they come from `counts`). */
  job: JobInput;
  store: CoordinatorStoreBackend;
  counts: PartitionCountSource;
  /** Mapper, allowKeyMovement, engine, processors (as for `samza plan`). */
  plan?: Omit<PlanOptions, 'warn'>;
  /** Poll interval in ms (default 5000). */
  intervalMs?: number;
  /** Retry delays after a failure: initialMs doubling up to maxMs (defaults 500 and 10000). */
  backoff?: { initialMs?: number; maxMs?: number };
}

export type ModelReason = 'start' | 'change';

/** A job model computed and persisted (or found already stored: `written` false). */
export interface ModelEvent {
  reason: ModelReason;
  /** The counts this model is for, and the counts acted on before (undefined at start). */
  counts: Map<string, number>;
  previousCounts: Map<string, number> | undefined;
  plan: JobModelPlan;
  cycle: CycleResult;
  /** Whether a write happened (false: the store already held this model). */
  written: boolean;
}

/** One stream's share of keys that would move, for a refused change. */
export interface RefusedStream {
  stream: string;
  base: number;
  partitions: number;
  /** Share of the stream's keys that would change task, and partition counts that keep every key. */
  movedShare: number;
  moved: { numerator: number; denominator: number };
  nearestSafe: number[];
}

/** Counts changed, but the mapper refused the new model: the stored model stays. */
export interface RefusedEvent {
  counts: Map<string, number>;
  previousCounts: Map<string, number> | undefined;
  error: AssignorError;
  /** Streams whose change would move keys (empty when the refusal is of another kind). */
  streams: RefusedStream[];
}

export interface ErrorInfo {
  /** True when the loop stopped because of this error. */
  fatal: boolean;
  /** When the next attempt runs (ms), for non-fatal errors. */
  retryInMs: number | undefined;
}

/** Store errors after which writing again could only do harm. */
/** Any store error (a prefix, not a code: the error-code test lists quoted codes only). */
const STORE_CODE = /^E_STORE_/;
const FATAL = new Set(['E_SAMZA_STORE_READ', 'E_STORE_FENCED', 'E_STORE_LOCKED', 'E_STORE_CORRUPT', 'E_STORE_FORMAT', 'E_STORE_VERSION', 'E_STORE_KAFKA_TOPIC', 'E_STORE_IO', 'E_STORE_CLOSED', 'E_STORE_READONLY', 'E_KAFKAJS_MISSING']);
/** Failures of the outside world: retried with backoff. */
const TRANSIENT = new Set(['E_STORE_KAFKA', 'E_COUNTS_KAFKA', 'E_COUNTS_TOPIC', 'E_COUNTS_FILE', 'E_COUNTS_MISSING', 'E_JOB', 'E_RANGE']);

export function sameCounts(a: ReadonlyMap<string, number> | undefined, b: ReadonlyMap<string, number>): boolean {
  if (a === undefined || a.size !== b.size) return false;
  for (const [k, v] of b) if (a.get(k) !== v) return false;
  return true;
}

/**
 * Watches partition counts and keeps the job model in the store up to date. Events: `model`
 * (ModelEvent), `refused` (RefusedEvent), `error` (AssignorError, ErrorInfo), `stopped`. `error`
 * is only emitted to listeners (without one, failures are still retried, and a fatal one rejects
 * `done`).
 */
export class Coordinator extends EventEmitter {
  /** Resolves when the loop ends after stop(); rejects with the fatal error that ended it. */
  readonly done: Promise<void>;
  /** The last model acted on (at start, and after each change). */
  current: ModelEvent | undefined;

  private readonly streams: string[];
  private readonly intervalMs: number;
  private readonly backoffInitial: number;
  private readonly backoffMax: number;
  private snapshot: Map<string, number> | undefined;
  private lastPlan: JobModelPlan | undefined;
  private stopping = false;
  private wake: (() => void) | undefined;
  private polls = 0;
  /** A write failed: its outcome is unknown, so the store is re-read before the next cycle. */
  private mustReopen = false;

  constructor(private readonly options: CoordinatorOptions) {
    super();
    this.streams = allInputStreams(options.job.config).map(systemStreamName);
    if (this.streams.length === 0) throw new AssignorError('E_COORDINATOR', 'Input streams to a job can not be empty.', 'task.inputs');
    this.intervalMs = options.intervalMs ?? 5000;
    this.backoffInitial = options.backoff?.initialMs ?? 500;
    this.backoffMax = options.backoff?.maxMs ?? 10_000;
    if (!(this.intervalMs > 0)) throw new AssignorError('E_USAGE', `the poll interval must be positive, got ${this.intervalMs} ms`, 'intervalMs');
    this.done = Promise.resolve().then(() => this.run());
    // done is also awaited by callers; this keeps an unawaited rejection from crashing the process.
    this.done.catch(() => undefined);
  }

  /** Starts a coordinator (the loop begins at once). */
  static start(options: CoordinatorOptions): Coordinator {
    return new Coordinator(options);
  }

  /** Polls made so far (including the one at start). */
  get pollCount(): number {
    return this.polls;
  }

  /** Ends the loop after the current step (a write in flight completes) and closes nothing. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.done.catch(() => undefined);
  }

  // Every retried failure goes through here: the loop picks the delay, reports it, then sleeps
  // exactly that long, so what the report says is the wait that follows.
  private async run(): Promise<void> {
    try {
      let attempt = 0;
      while (!this.stopping) {
        const failure = await this.step();
        if (failure === undefined) {
          attempt = 0;
          await this.sleep(this.intervalMs);
          continue;
        }
        const wait = this.delay(attempt++);
        this.report(failure, { fatal: false, retryInMs: wait });
        await this.sleep(wait);
      }
    } catch (e) {
      const err = e instanceof AssignorError ? e : new AssignorError('E_COORDINATOR', `internal error: ${(e as Error)?.message ?? String(e)}`);
      this.report(err, { fatal: true, retryInMs: undefined });
      throw err;
    } finally {
      this.emit('stopped');
    }
  }

  /**
   * One poll: re-read the store if a write failed, read the counts, act on a change. Returns the
   * error to retry after (the loop reports it with the wait), or undefined when the step succeeded.
   */
  private async step(): Promise<AssignorError | undefined> {
    if (this.mustReopen) {
      const failure = await this.reopen();
      if (failure !== undefined) return failure;
    }
    this.polls++;
    let counts: Map<string, number>;
    try {
      counts = await this.options.counts.counts(this.streams);
    } catch (e) {
      if (!(e instanceof AssignorError) || FATAL.has(e.code)) throw e;
      return e;
    }
    if (sameCounts(this.snapshot, counts)) return undefined;
    return this.act(counts, this.snapshot === undefined ? 'start' : 'change');
  }

  /**
   * One cycle for `counts`: compute, then persist in one write. Returns the error when the write
   * must be retried (the store is re-read first); undefined when the counts were acted on
   * (written or refused).
   */
  private async act(counts: Map<string, number>, reason: ModelReason): Promise<AssignorError | undefined> {
    const { store } = this.options;
    const job: JobInput = { config: this.options.job.config, partitionCounts: counts };
    let computed: ReturnType<typeof computeCycle>;
    try {
      computed = computeCycle(store, job, this.options.plan ?? {});
    } catch (e) {
      if (!(e instanceof AssignorError) || FATAL.has(e.code) || STORE_CODE.test(e.code)) throw e;
      // The mapper refused these counts: the stored model stays, and these counts are not retried.
      const event: RefusedEvent = { counts, previousCounts: this.snapshot, error: e, streams: this.movement(counts) };
      this.snapshot = counts;
      this.emit('refused', event);
      return undefined;
    }
    const { result, batch } = computed;
    // The event keeps the plan and what changed, not the batch (large jobs: millions of rows).
    const cycle: CycleResult = { plan: result.plan, changes: result.changes, recordsWritten: result.recordsWritten, warnings: result.warnings };
    if (batch !== undefined) {
      try {
        await store.commit(batch.records, batch.ssps);
      } catch (e) {
        if (!(e instanceof AssignorError) || !TRANSIENT.has(e.code)) throw e;
        this.mustReopen = true;
        return e;
      }
    }
    const event: ModelEvent = { reason, counts, previousCounts: this.snapshot, plan: result.plan, cycle, written: batch !== undefined };
    this.snapshot = counts;
    this.lastPlan = result.plan;
    this.current = event;
    this.emit('model', event);
    return undefined;
  }

  /** After a failed write: re-reads the store (the Kafka store fences again and replays the topic). */
  private async reopen(): Promise<AssignorError | undefined> {
    const store = this.options.store as CoordinatorStoreBackend & { reopen?: () => Promise<void> };
    try {
      await store.reopen?.();
    } catch (e) {
      if (!(e instanceof AssignorError) || !TRANSIENT.has(e.code)) throw e;
      return e;
    }
    this.mustReopen = false;
    return undefined;
  }

  /** Share of keys that would move, per stream whose count changed and is not a multiple of its base. */
  private movement(counts: Map<string, number>): RefusedStream[] {
    const out: RefusedStream[] = [];
    for (const s of this.lastPlan?.streams ?? []) {
      const c = counts.get(s.name);
      if (c === undefined || c === s.partitions) continue;
      const a = analyzeExpansion(s.base, c);
      if (a.keepsEveryKey) continue;
      out.push({ stream: s.name, base: s.base, partitions: c, movedShare: a.movedShare, moved: a.moved, nearestSafe: a.nearestSafe });
    }
    return out;
  }

  private report(e: AssignorError, info: ErrorInfo): void {
    if (this.listenerCount('error') > 0) this.emit('error', e, info);
  }

  private delay(attempt: number): number {
    return Math.min(this.backoffMax, this.backoffInitial * 2 ** Math.min(attempt, 30));
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      function done(): void {
        clearTimeout(t);
        resolve();
      }
      this.wake = done;
    });
  }
}
