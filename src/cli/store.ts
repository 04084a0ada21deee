// `assignor store inspect|compact|export`: look after a coordinator store directory.
//   inspect: what the log holds (records, live keys per type, size, last write); never writes.
//   compact: rewrite the log with only the live records (atomic; never larger: a log it cannot
//   shrink is left as it is; a writer also does this on its own).
//   export:  every live message in Samza's coordinator-stream layout, one JSON object per line.
import { AssignorError, EXIT_OK } from '../errors.js';
import { CoordinatorStore, type CoordinatorStoreStats } from '../store/index.js';
import { docPath, missingSubcommand, parse } from './args.js';
import { Output } from './output.js';
import { groupDigits, startProgress, type Progress } from './progress.js';

const HELP = `usage: assignor store inspect --store DIR [--json]
       assignor store compact --store DIR [--repair]
       assignor store export --store DIR

inspect   what the log holds: records (live, overwritten, deleted), live keys per message type,
          size, format version, last write. Reads only; takes no lock.
  --json  the same as one JSON object
compact   rewrite the log with only the live records, atomically (temp file, fsync, rename).
          Never grows the log: when the rewrite would not be smaller, the log is left as it is
          and the output says so. A writer also compacts on its own once half the records in
          the log are dead.
  --repair  if the log is damaged (not an interrupted write), keep a copy of it
            (coordinator.log.corrupt-<time>) and cut it at the damage first
export    every live message as Samza writes it to its coordinator stream, one JSON object per
          line: {"key":"[1,\\"<type>\\",\\"<key>\\"]","value":"<envelope JSON>"}. Reads only.

--no-progress  no progress bar (it only shows when stderr is a terminal, after 2 s)

Format and guarantees: ${docPath('store.md')}.`;

const OPTIONS = {
  store: { type: 'string' },
  json: { type: 'boolean' },
  repair: { type: 'boolean' },
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
  if (values.store === '') throw new AssignorError('E_USAGE', '--store needs a directory, got an empty string', '--store');
  if (values.repair && sub !== 'compact') throw new AssignorError('E_USAGE', `--repair writes to the store; ${sub} only reads`, '--repair');
  if (values.json && sub !== 'inspect') throw new AssignorError('E_USAGE', '--json is an option of inspect', '--json');
  // A log of millions of records takes seconds to replay, compact or export: a bar on a terminal's
  // stderr once the run has lasted 2 s, naming the step. It is erased before anything goes to
  // stdout when stdout is the same terminal.
  const progress = startProgress(`store ${sub}`, { enabled: values['no-progress'] !== true });
  try {
    if (sub === 'inspect') return inspect(values.store, values.json === true, progress);
    if (sub === 'export') return await exportMessages(values.store, progress);
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
  const lines = [
    `store ${s.location}`,
    `  log          ${s.log}${s.linkTarget !== undefined ? ` (through the link coordinator.log -> ${s.linkTarget})` : ''}`,
    `  format       version ${s.formatVersion}${s.formatVersion < 2 ? ' (upgraded to version 2 by the next write)' : ''}`,
    `  size         ${n(s.fileBytes)} bytes in ${n(s.frames)} frames${s.tornBytes > 0 ? `; ${n(s.tornBytes)} bytes of an unfinished write at the end (a writer drops them)` : ''}`,
    `  records      ${n(s.records)}: ${n(s.liveKeys)} live, ${n(s.deadRecords)} overwritten, deleted or tombstones${s.records > 0 && s.deadRecords >= s.liveKeys ? ' (a writer compacts this)' : ''}`,
    `  last write   ${s.lastWrite === undefined ? 'none' : new Date(s.lastWrite).toISOString()}`,
    `  types        ${s.types.length === 0 ? 'none' : ''}`,
  ];
  const width = Math.max(0, ...s.types.map((t) => t.type.length));
  for (const t of s.types) lines.push(`    ${JSON.stringify(t.type).padEnd(width + 2)}  ${n(t.keys).padStart(12)} keys`);
  return `${lines.join('\n')}\n`;
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

async function exportMessages(dir: string, progress: Progress): Promise<number> {
  progress.phase('store export: reading the log');
  const store = CoordinatorStore.open(dir, { readOnly: true });
  const out = new Output(process.stdout);
  try {
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
  } finally {
    store.close();
  }
  return EXIT_OK;
}
