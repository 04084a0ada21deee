// `assignor store inspect|compact|export`: look after a coordinator store, a directory or a Kafka
// coordinator stream (every location --store takes elsewhere).
//   inspect: what the log holds (records, live keys per type, size, last write); never writes.
//   compact: rewrite the log with only the live records (atomic; never larger: a log it cannot
//   shrink is left as it is; a writer also does this on its own). A file store's operation: a
//   Kafka topic is compacted by the broker, so it is refused.
//   export:  every live message in Samza's coordinator-stream layout, one JSON object per line.
import { AssignorError, EXIT_OK } from '../errors.js';
import { CoordinatorStore, type CoordinatorStoreStats } from '../store/index.js';
import type { CoordinatorStoreBackend } from '../store/backend.js';
import { isKafkaLocation } from '../store/kafka-location.js';
import { parseJobFile } from '../samza/job-file.js';
import { docPath, missingSubcommand, parse, readJsonFile } from './args.js';
import { Output } from './output.js';
import { groupDigits, startProgress, type Progress } from './progress.js';

const HELP = `usage: assignor store inspect --store S [--json] [--job job.json]
       assignor store compact --store DIR [--repair]
       assignor store export --store S [--job job.json]

S is a store directory or a Kafka coordinator stream, kafka://HOST:PORT[,HOST:PORT...]/TOPIC
(kafka://HOST:PORT alone with --job: __samza_coordinator_<job.name>_<job.id>), as for samza plan.

inspect   what the log holds: records (live, overwritten, deleted), live keys per message type,
          size, format version, last write. Reads only; takes no lock (fences no Kafka writer).
  --json  the same as one JSON object
compact   rewrite the log with only the live records, atomically (temp file, fsync, rename).
          Never grows the log: when the rewrite would not be smaller, the log is left as it is
          and the output says so. A writer also compacts on its own once half the records in
          the log are dead. Directories only: a Kafka coordinator stream is a compacted topic
          (cleanup.policy=compact), which the broker's log cleaner compacts; compact refuses a
          kafka:// location.
  --repair  if the log is damaged (not an interrupted write), keep a copy of it
            (coordinator.log.corrupt-<time>) and cut it at the damage first
export    every live message as Samza writes it to its coordinator stream, one JSON object per
          line: {"key":"[1,\\"<type>\\",\\"<key>\\"]","value":"<envelope JSON>"}. Reads only.

--job FILE     only to name a Kafka topic left out of a kafka:// location
--no-progress  no progress bar (it only shows when stderr is a terminal, after 2 s)

Format and guarantees: ${docPath('store.md')}.`;

const OPTIONS = {
  store: { type: 'string' },
  json: { type: 'boolean' },
  repair: { type: 'boolean' },
  job: { type: 'string' },
  'no-progress': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function run(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  // A usage error is one line on stderr (exit 2); only --help prints the usage, on stdout.
  if (sub === undefined) missingSubcommand('store', ['inspect', 'compact', 'export']);
  if (sub === '--help' || sub === '-h' || sub === 'help') {
    process.stdout.write(`${HELP}\n`);
    return EXIT_OK;
  }
  if (sub !== 'inspect' && sub !== 'compact' && sub !== 'export') {
    throw new AssignorError('E_USAGE', `unknown store subcommand ${JSON.stringify(sub)}: expected inspect, compact or export`);
  }
  const { values } = parse(rest, OPTIONS);
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return EXIT_OK;
  }
  if (values.store === undefined) throw new AssignorError('E_USAGE', '--store is required', '--store');
  if (values.store === '') throw new AssignorError('E_USAGE', '--store needs a directory or kafka://HOST:PORT/TOPIC, got an empty string', '--store');
  if (values.repair && sub !== 'compact') throw new AssignorError('E_USAGE', `--repair writes to the store; ${sub} only reads`, '--repair');
  if (values.json && sub !== 'inspect') throw new AssignorError('E_USAGE', '--json is an option of inspect', '--json');
  const kafka = isKafkaLocation(values.store);
  if (sub === 'compact' && kafka) {
    throw new AssignorError(
      'E_STORE_ARG',
      `store compact rewrites a store directory's log; ${values.store} is a Kafka coordinator stream, a compacted topic (cleanup.policy=compact) that the broker's log cleaner compacts: there is nothing for assignor to compact`,
      '--store',
    );
  }
  if (values.job !== undefined && !kafka) throw new AssignorError('E_USAGE', '--job only names the topic of a kafka:// location; a store directory needs none', '--job');
  // A log of millions of records takes seconds to replay, compact or export: a bar on a terminal's
  // stderr once the run has lasted 2 s, naming the step. It is erased before anything goes to
  // stdout when stdout is the same terminal.
  const progress = startProgress(`store ${sub}`, { enabled: values['no-progress'] !== true });
  try {
    if (kafka) {
      const job = values.job === undefined ? undefined : parseJobFile(readJsonFile(values.job)).config;
      // The Kafka store (and KafkaJS) load only for kafka:// locations: a file store's cold run stays small.
      const { openStore } = await import('../coordinator/open-store.js');
      progress.phase(`store ${sub}: reading ${values.store}`);
      const store = await openStore(values.store, { readOnly: true, config: job });
      try {
        return sub === 'inspect' ? printStats(store.stats(), values.json === true, progress) : await exportMessages(store, progress);
      } finally {
        await store.close();
      }
    }
    if (sub === 'inspect') return inspect(values.store, values.json === true, progress);
    if (sub === 'export') return await exportDir(values.store, progress);
    return compact(values.store, values.repair === true, progress);
  } finally {
    progress.end();
  }
}

function inspect(dir: string, json: boolean, progress: Progress): number {
  progress.phase('store inspect: reading the log');
  const store = CoordinatorStore.open(dir, { readOnly: true });
  let s: CoordinatorStoreStats;
  try {
    s = store.stats();
  } finally {
    store.close();
  }
  return printStats(s, json, progress);
}

function printStats(s: CoordinatorStoreStats, json: boolean, progress: Progress): number {
  progress.end();
  if (json) {
    const lastWrite = s.lastWrite === undefined ? null : new Date(s.lastWrite).toISOString();
    process.stdout.write(`${JSON.stringify({ ...s, lastWrite, modified: s.modified === undefined ? null : new Date(s.modified).toISOString() })}\n`);
    return EXIT_OK;
  }
  process.stdout.write(describe(s));
  return EXIT_OK;
}

// As toLocaleString('en-US') prints a count (1,002,505), without loading ICU: that costs a cold
// run about 60 ms, as much as reading a 1M-record log's header (bench/cli-cold.bench.ts).
const n = (x: number): string => groupDigits(x);

export function describe(s: CoordinatorStoreStats): string {
  const lines = [`store ${s.location}`, ...(isKafkaLocation(s.location) ? kafkaLines(s) : fileLines(s))];
  lines.push(`  last write   ${s.lastWrite === undefined ? 'none' : new Date(s.lastWrite).toISOString()}`, `  types        ${s.types.length === 0 ? 'none' : ''}`);
  const width = Math.max(0, ...s.types.map((t) => t.type.length));
  for (const t of s.types) lines.push(`    ${JSON.stringify(t.type).padEnd(width + 2)}  ${n(t.keys).padStart(12)} keys`);
  return `${lines.join('\n')}\n`;
}

function fileLines(s: CoordinatorStoreStats): string[] {
  return [
    `  log          ${s.log}${s.linkTarget !== undefined ? ` (through the link coordinator.log -> ${s.linkTarget})` : ''}`,
    `  format       version ${s.formatVersion}${s.formatVersion < 2 ? ' (upgraded to version 2 by the next write)' : ''}`,
    `  size         ${n(s.fileBytes)} bytes in ${n(s.frames)} frames${s.tornBytes > 0 ? `; ${n(s.tornBytes)} bytes of an unfinished write at the end (a writer drops them)` : ''}`,
    `  records      ${n(s.records)}: ${n(s.liveKeys)} live, ${n(s.deadRecords)} overwritten, deleted or tombstones${s.records > 0 && s.deadRecords >= s.liveKeys ? ' (a writer compacts this)' : ''}`,
  ];
}

// A topic has no format version of ours and no frames: its records are Samza's (key protocol
// version 1), and the broker's log cleaner, not a writer, drops the dead ones.
function kafkaLines(s: CoordinatorStoreStats): string[] {
  return [
    `  log          ${s.log}`,
    `  format       Samza coordinator-stream records (key version ${s.formatVersion})`,
    `  size         ${n(s.fileBytes)} bytes of committed records`,
    `  records      ${n(s.records)}: ${n(s.liveKeys)} live, ${n(s.deadRecords)} overwritten, deleted or tombstones (the broker's log cleaner compacts the topic)`,
  ];
}

function compact(dir: string, repair: boolean, progress: Progress): number {
  progress.phase('store compact: reading the log');
  const store = CoordinatorStore.open(dir, { repair, autoCompact: false, create: false });
  try {
    const r = store.openReport;
    if (r.backupPath !== undefined) {
      progress.note(`store: repaired: the damaged log was copied to ${r.backupPath} and cut at byte ${r.repairedAt} (${r.truncatedBytes} bytes dropped)\n`);
    }
    const before = store.stats();
    progress.phase('store compact: writing the compacted log');
    const done = store.compact();
    const after = store.stats();
    progress.end();
    process.stdout.write(
      done.compacted
        ? `compacted ${store.dir}: ${n(before.fileBytes)} -> ${n(after.fileBytes)} bytes, ${n(before.records)} -> ${n(after.records)} records (${n(after.liveKeys)} live keys)\n`
        : `nothing to save in ${store.dir}: the compacted log would be ${n(done.rewrittenBytes)} bytes, not less than the log's ${n(before.fileBytes)}; the log is left as it is (${n(before.records)} records, ${n(before.liveKeys)} live keys)\n`,
    );
  } finally {
    store.close();
  }
  return EXIT_OK;
}

async function exportDir(dir: string, progress: Progress): Promise<number> {
  progress.phase('store export: reading the log');
  const store = CoordinatorStore.open(dir, { readOnly: true });
  try {
    return await exportMessages(store, progress);
  } finally {
    store.close();
  }
}

async function exportMessages(store: CoordinatorStoreBackend, progress: Progress): Promise<number> {
  const out = new Output(process.stdout);
  {
    if (process.stdout.isTTY === true) progress.end();
    else progress.phase('store export: writing', { total: store.size, unit: 'messages' });
    let buf = '';
    let done = 0;
    for (const m of store.messages()) {
      buf += `${JSON.stringify(m)}\n`;
      done++;
      if (buf.length >= 1 << 20) {
        await out.write(buf);
        progress.tick(done);
        buf = '';
      }
    }
    await out.write(buf);
    await out.close();
  }
  return EXIT_OK;
}
