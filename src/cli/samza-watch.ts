// `assignor samza watch`: the live coordinator. Prints the job model as one JSON line on stdout at
// start and after every change it persists, a summary (what moved and why) on stderr; refused
// changes and retried failures are reported on stderr. SIGTERM or SIGINT stops it cleanly (exit 0);
// a fatal error (fenced by a newer coordinator, a damaged store) ends it with one line (exit 2).
import { formatPercent } from '../basics.js';
import { AssignorError, EXIT_OK } from '../errors.js';
import { parseJobFile } from '../samza/job-file.js';
import { jobModelJsonBytes } from '../samza/job-model.js';
import { summarize } from '../samza/summary.js';
import type { JobInput, JobModelPlan, MapperMode, PlanOptions } from '../samza/plan.js';
import { computeCycle, persistCycle } from '../coordinator/persist.js';
import { Coordinator, type ModelEvent, type RefusedEvent, type ErrorInfo } from '../coordinator/coordinator.js';
import { openStore } from '../coordinator/open-store.js';
import { JobFilePartitionCounts, KafkaPartitionCounts, type PartitionCountSource } from '../coordinator/partition-counts.js';
import { parseKafkaLocation } from '../store/kafka-location.js';
import { choiceOption, engineOption, parse, readJsonFile } from './args.js';
import { Output } from './output.js';

export const WATCH_HELP = `usage: assignor samza watch --job job.json --store S [--brokers HOST:PORT[,HOST:PORT]] [--interval 5s] [options]

watch: keep the job model up to date as input topics grow (Samza's partition-count monitor + coordinator)
  --job FILE              Samza config (and, without --brokers, each input stream's partition count)
  --store S               a directory (file store) or kafka://HOST:PORT/TOPIC (Samza's coordinator stream;
                          kafka://HOST:PORT alone uses __samza_coordinator_<job.name>_<job.id>)
  --brokers LIST          read partition counts from Kafka's metadata (topic = the stream name);
                          without it they are re-read from the job file on every poll
  --interval T            poll interval: 5s (default), 500ms, 1m, 1h, or seconds
  --mapper base|samza     partition-expansion mapper; overrides the job file (default base)
  --allow-key-movement    base mapper: accept a partition count that is not a multiple of the base
  --engine E              wasm (default), wasm-simd, wasm-scalar or reference
  --quiet                 no summaries on stderr (errors and refusals are still reported)
  stdout: the JobModel as one JSON line at start and after each change; stderr: what moved and why.`;

const OPTIONS = {
  job: { type: 'string' },
  store: { type: 'string' },
  brokers: { type: 'string' },
  interval: { type: 'string' },
  mapper: { type: 'string' },
  'allow-key-movement': { type: 'boolean' },
  engine: { type: 'string' },
  quiet: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** `5s`, `500ms`, `1m`, `1h`, or a plain number of seconds -> milliseconds. */
export function parseInterval(text: string, name = '--interval'): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(text);
  const ms = m === null ? NaN : Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] ?? 's']!;
  if (!(ms >= 10 && ms <= 86_400_000)) throw new AssignorError('E_USAGE', `${name} must be a duration from 10ms to 24h such as 5s, 500ms, 1m or 1h, got ${JSON.stringify(text)}`, name);
  return Math.round(ms);
}

function describeCounts(counts: ReadonlyMap<string, number>, previous: ReadonlyMap<string, number> | undefined): string {
  return [...counts]
    .map(([s, c]) => {
      const p = previous?.get(s);
      return p !== undefined && p !== c ? `${s} ${p} -> ${c}` : `${s} ${c}`;
    })
    .join(', ');
}

/**
 * `samza plan --store kafka://...`: one cycle on the Kafka store (one transaction; nothing when
 * unchanged). A dry run opens the topic read-only (no fencing, no topic creation) and writes nothing.
 */
export async function planOnKafkaStore(location: string, job: JobInput, options: PlanOptions, dryRun = false): Promise<{ plan: JobModelPlan; summary: string }> {
  const store = await openStore(location, { config: job.config, readOnly: dryRun });
  try {
    if (dryRun) {
      const { result } = computeCycle(store, job, options);
      return { plan: result.plan, summary: summarize(result.plan, result) };
    }
    const cycle = await persistCycle(store, job, options);
    return { plan: cycle.plan, summary: summarize(cycle.plan, cycle) };
  } finally {
    await store.close();
  }
}

export async function watch(argv: string[]): Promise<number> {
  const { values } = parse(argv, OPTIONS);
  if (values.help) {
    process.stdout.write(`${WATCH_HELP}\n`);
    return EXIT_OK;
  }
  if (values.job === undefined || values.job === '') throw new AssignorError('E_USAGE', '--job is required', '--job');
  if (values.store === undefined || values.store === '') throw new AssignorError('E_USAGE', '--store is required (a directory or kafka://HOST:PORT/TOPIC)', '--store');
  if (values.job === '-' && values.brokers === undefined) {
    // Without --brokers the job file is read again on every poll (it is where counts change); stdin can be read once.
    throw new AssignorError('E_USAGE', '--job - (stdin) needs --brokers: without it the partition counts are re-read from the job file on every poll', '--job');
  }
  const intervalMs = values.interval === undefined ? 5000 : parseInterval(values.interval);
  const engine = engineOption(values.engine); // unset: ASSIGNOR_ENGINE or the default, as every command
  const job = parseJobFile(readJsonFile(values.job));
  const mapper: MapperMode = values.mapper !== undefined ? choiceOption<MapperMode>(values.mapper, '--mapper', ['base', 'samza'], 'base') : (job.mapper ?? 'base');
  const plan = {
    mapper,
    allowKeyMovement: values['allow-key-movement'] === true || job.allowKeyMovement === true,
    ...(engine !== undefined ? { engine } : {}),
    ...(job.processors !== undefined ? { processors: job.processors } : {}),
  };
  const brokers = values.brokers === undefined ? undefined : parseKafkaLocation(`kafka://${values.brokers}`, '--brokers').brokers;
  const counts: PartitionCountSource = brokers !== undefined ? new KafkaPartitionCounts(brokers) : new JobFilePartitionCounts(values.job);

  const store = await openStore(values.store, { config: job.config });
  const out = new Output(process.stdout);
  let writing: Promise<void> = Promise.resolve();
  const say = (line: string): void => {
    process.stderr.write(`${line}\n`);
  };
  const coordinator = Coordinator.start({ job, store, counts, plan, intervalMs });
  say(`watch: ${store.location}, partition counts from ${counts.name} every ${intervalMs} ms (${mapper} mapper)`);

  coordinator.on('model', (e: ModelEvent) => {
    const what = e.reason === 'start' ? 'at start' : 'partition counts changed';
    if (!values.quiet) {
      say(`watch: ${what}: ${describeCounts(e.counts, e.previousCounts)}; ${e.written ? 'new job model persisted in one write' : 'the store already holds this job model'}`);
      process.stderr.write(summarize(e.plan, e.cycle));
    }
    writing = writing.then(async () => {
      for (const piece of jobModelJsonBytes(e.plan)) await out.write(piece);
    });
  });
  coordinator.on('refused', (e: RefusedEvent) => {
    say(`watch: partition counts changed (${describeCounts(e.counts, e.previousCounts)}) but the new model is refused; keeping the stored model: ${e.error.oneLine()}`);
    for (const s of e.streams) {
      say(`  ${s.stream}: base ${s.base} -> ${s.partitions} partitions would move ${s.moved.numerator}/${s.moved.denominator} of keys (${formatPercent(s.movedShare)}); counts that keep every key: ${s.nearestSafe.join(' or ')}`);
    }
  });
  coordinator.on('error', (e: AssignorError, info: ErrorInfo) => {
    if (!info.fatal) say(`watch: ${e.oneLine()}; retrying in ${((info.retryInMs ?? 0) / 1000).toFixed(1)} s`);
  });

  const stop = (): void => {
    void coordinator.stop();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  try {
    await coordinator.done;
  } finally {
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
    await writing;
    await out.close();
    await counts.close();
    await store.close();
  }
  say('watch: stopped');
  return EXIT_OK;
}
