// Shared helpers for the coordinator tests: jobs, temp dirs, store snapshots, a store wrapper that
// fails on demand, waiting for events, and running the built CLI as a long-lived child.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { AssignorError, type ErrorCode } from '../../src/errors.js';
import { SamzaConfig } from '../../src/samza/config.js';
import type { JobInput } from '../../src/samza/plan.js';
import type { StoreRecord, CoordinatorStoreBackend, SspAssignment, SspRows, StoreStats, TaskTable } from '../../src/store/backend.js';
import type { Envelope } from '../../src/coordinator-stream/messages.js';
import { CLI, ROOT } from '../helpers.js';

const made: string[] = [];

export function tempDir(prefix = 'assignor-coord-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  made.push(d);
  return d;
}

export function cleanupTempDirs(): void {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** A stateful Samza job (so the base mapper keeps a fixed task set) reading the given streams. */
export function statefulConfig(streams: string[], extra: Record<string, string> = {}): SamzaConfig {
  return new SamzaConfig(
    Object.entries({
      'job.name': 'coord-test',
      'task.inputs': streams.join(','),
      'job.container.count': '2',
      'stores.counts.factory': 'org.apache.samza.storage.kv.RocksDbKeyValueStorageEngineFactory',
      'stores.counts.changelog': 'kafka.counts-changelog',
      ...extra,
    }),
  );
}

export function jobOf(config: SamzaConfig): JobInput {
  return { config, partitionCounts: new Map() };
}

/** The job file format (docs/samza.md) for a config and partition counts. */
export function jobFileJson(config: SamzaConfig, partitions: Record<string, number>, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ config: Object.fromEntries(config.map), partitions, ...extra });
}

/** Everything a store holds: type -> key -> values, sorted, for equality checks. */
export function contents(store: { types(): string[]; entries(type: string): Map<string, unknown> }): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const t of [...store.types()].sort()) {
    const e = [...store.entries(t)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    out[t] = Object.fromEntries(e);
  }
  return out;
}

/** SSP -> task names (the set-task-partition-assignment records) of a store. */
export function sspTasks(store: { entries(type: string): Map<string, unknown> }): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [k, v] of store.entries('set-task-partition-assignment')) {
    const s = JSON.parse(k) as { system: string; stream: string; partition: number };
    out.set(`${s.system}.${s.stream}#${s.partition}`, JSON.parse((v as { taskNames: string }).taskNames) as string[]);
  }
  return out;
}

/**
 * A backend that delegates to another and can be told to fail: the next `failCommits` commits
 * throw `code` (nothing written), and reopen() is counted.
 */
export class FlakyStore implements CoordinatorStoreBackend {
  failCommits = 0;
  /** The next `failReopens` reopen() calls throw E_STORE_KAFKA. */
  failReopens = 0;
  code: ErrorCode = 'E_STORE_KAFKA';
  commits = 0;
  attempts = 0;
  reopens = 0;
  /** Every commit and reopen attempt: when it started and ended (Date.now()), and whether it failed. */
  readonly log: Array<{ op: 'commit' | 'reopen'; start: number; end: number; failed: boolean }> = [];

  constructor(private readonly inner: CoordinatorStoreBackend) {}

  get location(): string {
    return this.inner.location;
  }
  get readOnly(): boolean {
    return this.inner.readOnly;
  }
  get size(): number {
    return this.inner.size;
  }
  get(type: string, key: string): unknown {
    return this.inner.get(type, key);
  }
  has(type: string, key: string): boolean {
    return this.inner.has(type, key);
  }
  message(type: string, key: string): Envelope | undefined {
    return this.inner.message(type, key);
  }
  entries(type: string): Map<string, unknown> {
    return this.inner.entries(type);
  }
  types(): string[] {
    return this.inner.types();
  }
  singleFields(type: string, field: string): Map<string, string> | undefined {
    return this.inner.singleFields(type, field);
  }
  taskTable(specs: ReadonlyArray<readonly [string, string]>): TaskTable | undefined {
    return this.inner.taskTable(specs);
  }
  sspAssignment(): SspAssignment {
    return this.inner.sspAssignment();
  }
  messages(): Iterable<{ key: string; value: string }> {
    return this.inner.messages();
  }
  stats(): StoreStats {
    return this.inner.stats();
  }
  async commit(records: ReadonlyArray<StoreRecord>, ssps?: SspRows): Promise<void> {
    this.attempts++;
    const start = Date.now();
    if (this.failCommits > 0) {
      this.failCommits--;
      this.log.push({ op: 'commit', start, end: Date.now(), failed: true });
      throw new AssignorError(this.code, `injected failure (${this.code})`, 'test');
    }
    await this.inner.commit(records, ssps);
    this.log.push({ op: 'commit', start, end: Date.now(), failed: false });
    this.commits++;
  }
  async reopen(): Promise<void> {
    this.reopens++;
    const now = Date.now();
    const failed = this.failReopens > 0;
    this.log.push({ op: 'reopen', start: now, end: now, failed });
    if (failed) {
      this.failReopens--;
      throw new AssignorError('E_STORE_KAFKA', 'injected reopen failure (E_STORE_KAFKA)', 'test');
    }
  }
  close(): void | Promise<void> {
    return this.inner.close();
  }
}

/** Resolves when `predicate` holds (checked every 10 ms), or rejects after `ms`. */
export async function until(predicate: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export interface Running {
  child: ChildProcess;
  /** Complete stdout lines so far. */
  out: string[];
  /** All of stderr so far. */
  err(): string;
  /** Resolves with the exit code (or the signal name). */
  exited: Promise<number | string>;
  /** Waits for at least n stdout lines. */
  lines(n: number, ms: number): Promise<string[]>;
  /** Waits for stderr to match. */
  stderrMatch(re: RegExp, ms: number): Promise<void>;
}

/** Where children write their diagnostic reports (one directory per test process). */
const REPORTS = join(tmpdir(), `assignor-reports-${process.pid}`);
mkdirSync(REPORTS, { recursive: true });

/**
 * What a child that went silent is doing: Node writes a diagnostic report on SIGUSR2 (the child
 * starts with --report-on-signal), and this gives its JavaScript stack and its open libuv handles
 * (timers, sockets), or why there is none. A watch once printed nothing for 7 minutes in CI and
 * never locally; the next time, the failure says where it was.
 */
async function childReport(child: ChildProcess): Promise<string> {
  if (child.exitCode !== null || !child.kill('SIGUSR2')) return 'no report: the child has exited';
  for (let waited = 0; waited < 5000; waited += 100) {
    const file = readdirSync(REPORTS).find((f) => f.includes(`.${child.pid}.`) && f.endsWith('.json'));
    if (file !== undefined) {
      try {
        const r = JSON.parse(readFileSync(join(REPORTS, file), 'utf8')) as { javascriptStack?: { message?: string; stack?: string[] }; libuv?: Array<Record<string, unknown>> };
        // (When the loop is idle the stack is empty; when it spins, it says where.)
        const handles = (r.libuv ?? []).filter((h) => h.is_active === true && !['async', 'check', 'prepare', 'signal'].includes(h.type as string));
        const shown = handles.map((h) => `${String(h.type)}${h.remoteEndpoint !== undefined ? ` to ${JSON.stringify(h.remoteEndpoint)}` : ''}${h.firesInMsFromNow !== undefined ? ` fires in ${String(h.firesInMsFromNow)} ms` : ''}${h.loopIdleTimeSeconds !== undefined ? ` idle ${String(h.loopIdleTimeSeconds)} s` : ''}`);
        return `JS stack: ${r.javascriptStack?.message ?? ''} ${(r.javascriptStack?.stack ?? []).slice(0, 12).join(' | ')}; active handles: ${shown.join(', ')}`;
      } catch {
        // still being written
      }
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return 'no report within 5 s (the event loop may be blocked)';
}

/** Starts the built CLI (`node dist/cli/main.js ...`) as a child process. */
export function startCli(args: string[], env: NodeJS.ProcessEnv = {}): Running {
  const diagnose = process.versions.bun === undefined && process.versions.deno === undefined ? ['--report-on-signal', '--report-signal=SIGUSR2', `--report-directory=${REPORTS}`] : [];
  const child = spawn(process.execPath, [...diagnose, CLI, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const out: string[] = [];
  let partial = '';
  let err = '';
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (d: string) => {
    partial += d;
    let i: number;
    while ((i = partial.indexOf('\n')) >= 0) {
      out.push(partial.slice(0, i));
      partial = partial.slice(i + 1);
    }
  });
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (d: string) => (err += d));
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  return {
    child,
    out,
    err: () => err,
    exited,
    async lines(n, ms) {
      try {
        await until(() => out.length >= n || child.exitCode !== null, ms, `${n} stdout lines from assignor ${args.join(' ')}`);
      } catch (e) {
        throw new Error(`${(e as Error).message} (stderr: ${err.slice(-3000)}) (${await childReport(child)})`);
      }
      if (out.length < n) throw new Error(`assignor ${args.join(' ')} exited (${child.exitCode}) after ${out.length} lines: ${err.slice(-600)}`);
      return out;
    },
    async stderrMatch(re, ms) {
      await until(() => re.test(err) || child.exitCode !== null, ms, `stderr matching ${re} (stderr: ${err.slice(-3000)})`);
      if (!re.test(err)) throw new Error(`assignor exited (${child.exitCode}) before stderr matched ${re}: ${err.slice(-600)}`);
    },
  };
}
