// `assignor samza import` and `assignor samza export`: a Samza job's coordinator stream (its Kafka
// topic, a dump of its messages, or another store) into a store, and a store out as a dump (JSON
// Lines, one message per line as on the topic; format in docs/coordinator.md). After an import,
// `samza plan` and `samza watch` continue from the job's real state.
import fs, { statSync } from 'node:fs';
import { AssignorError, EXIT_OK } from '../errors.js';
import { parseJobFile } from '../samza/job-file.js';
import type { SamzaConfig } from '../samza/config.js';
import { openStore } from '../coordinator/open-store.js';
import { copyStore, MessageDump, writeDump, type ReadableStore } from '../coordinator/transfer.js';
import { isKafkaLocation } from '../store/kafka-location.js';
import type { CoordinatorStoreBackend } from '../store/backend.js';
import { parse, readJsonFile } from './args.js';
import { cannotWrite, Output } from './output.js';
import { startProgress } from './progress.js';

export const IMPORT_HELP = `usage: assignor samza import --from SRC --store S [--job job.json]
       assignor samza export --store S [--out FILE] [--job job.json]

import: copy a job's coordinator-stream state into an empty store, in one write
  --from SRC              kafka://HOST:PORT/TOPIC (a Samza coordinator stream), a store directory,
                          or a dump file (JSON Lines or a JSON array of {"key", "value"} messages)
  --store S               the store to fill: a directory or kafka://HOST:PORT/TOPIC
  --job FILE              only to name a Kafka topic left out of a location (__samza_coordinator_<job.name>_<job.id>)
export: write every live message of a store as JSON Lines ({"key": "<key JSON>", "value": "<envelope JSON>"})
  --out FILE              write there instead of stdout (- is stdout)
  --no-progress           no progress bar (it only shows when stderr is a terminal, after 2 s)`;

const IMPORT_OPTIONS = {
  from: { type: 'string' },
  store: { type: 'string' },
  job: { type: 'string' },
  'no-progress': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const EXPORT_OPTIONS = {
  store: { type: 'string' },
  out: { type: 'string' },
  job: { type: 'string' },
  'no-progress': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

function jobConfig(path: string | undefined): SamzaConfig | undefined {
  return path === undefined ? undefined : parseJobFile(readJsonFile(path)).config;
}

async function openSource(from: string, config: SamzaConfig | undefined): Promise<ReadableStore & { close?: () => unknown }> {
  if (isKafkaLocation(from)) return openStore(from, { readOnly: true, config, where: '--from' });
  let dir = false;
  try {
    dir = statSync(from).isDirectory();
  } catch {
    // not there: MessageDump.read names the file in its error
  }
  if (dir) return openStore(from, { readOnly: true, where: '--from' });
  return MessageDump.read(from);
}

export async function importCommand(argv: string[]): Promise<number> {
  const { values } = parse(argv, IMPORT_OPTIONS);
  if (values.help) {
    process.stdout.write(`${IMPORT_HELP}\n`);
    return EXIT_OK;
  }
  if (values.from === undefined || values.from === '') throw new AssignorError('E_USAGE', '--from is required (kafka://HOST:PORT/TOPIC, a store directory or a dump file)', '--from');
  if (values.store === undefined || values.store === '') throw new AssignorError('E_USAGE', '--store is required (a directory or kafka://HOST:PORT/TOPIC)', '--store');
  if (values.from === values.store) throw new AssignorError('E_USAGE', '--from and --store name the same place', '--store');
  const config = jobConfig(values.job);
  // A dump of a million messages takes seconds to read and write: a bar on a terminal's stderr once
  // the run has lasted 2 s, naming the step (redrawn by a timer: reading a dump is asynchronous).
  const progress = startProgress('samza import', { enabled: values['no-progress'] !== true, ticker: true });
  progress.phase(`samza import: reading ${values.from}`);
  let source: Awaited<ReturnType<typeof openSource>> | undefined;
  let target: CoordinatorStoreBackend | undefined;
  try {
    source = await openSource(values.from, config);
    progress.phase(`samza import: writing ${values.store}`);
    target = await openStore(values.store, { config });
    const r = await copyStore(source, target);
    progress.end();
    process.stderr.write(`import: ${r.messages} messages (${r.sspRows} SSP assignments; types ${r.types.join(', ') || 'none'}) from ${source.location} into ${target.location} in one write\n`);
  } finally {
    progress.end();
    await target?.close();
    await source?.close?.();
  }
  return EXIT_OK;
}

export async function exportCommand(argv: string[]): Promise<number> {
  const { values } = parse(argv, EXPORT_OPTIONS);
  if (values.help) {
    process.stdout.write(`${IMPORT_HELP}\n`);
    return EXIT_OK;
  }
  if (values.store === undefined || values.store === '') throw new AssignorError('E_USAGE', '--store is required (a directory or kafka://HOST:PORT/TOPIC)', '--store');
  if (values.out === '') throw new AssignorError('E_USAGE', '--out needs a file name, got an empty string', '--out');
  const toStdout = values.out === undefined || values.out === '-'; // '-' is stdout, as for every other output
  // The bar (after 2 s, on a terminal's stderr) is erased before the dump when it goes to the same terminal.
  const progress = startProgress('samza export', { enabled: values['no-progress'] !== true, ticker: true });
  progress.phase(`samza export: reading ${values.store}`);
  let store: CoordinatorStoreBackend | undefined;
  try {
    store = await openStore(values.store, { readOnly: true, config: jobConfig(values.job) });
    if (toStdout && process.stdout.isTTY === true) progress.end();
    else progress.phase('samza export: writing', { unit: 'chars' });
    let written = 0;
    const counted = (t: string): void => {
      written += t.length;
      progress.tick(written);
    };
    let n: number;
    if (toStdout) {
      const out = new Output(process.stdout);
      n = await writeDump(store, async (t) => {
        await out.write(t);
        counted(t);
      });
      await out.close();
    } else {
      n = await dumpToFile(store, values.out!, counted);
    }
    progress.end();
    process.stderr.write(`export: ${n} messages from ${store.location}\n`);
  } finally {
    progress.end();
    await store?.close();
  }
  return EXIT_OK;
}

/**
 * Writes the dump to `file` through a temporary file renamed over it once complete, so a failed
 * export never leaves a truncated or half-written dump in place of an earlier one. A FIFO or a
 * device (/dev/stdout) is written directly.
 */
async function dumpToFile(store: CoordinatorStoreBackend, file: string, counted: (text: string) => void): Promise<number> {
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(file);
  } catch {
    st = undefined;
  }
  if (st?.isDirectory()) throw new AssignorError('E_OUTPUT', `--out ${file} is a directory; name a file`, '--out');
  const direct = st !== undefined && !st.isFile();
  const target = direct ? file : `${file}.${process.pid}.tmp`;
  let fd: number;
  try {
    fd = fs.openSync(target, direct ? 'w' : 'wx');
  } catch (e) {
    throw cannotWrite(file, e, '--out');
  }
  let done = false;
  try {
    const n = await writeDump(store, async (t) => {
      const b = Buffer.from(t, 'utf8');
      for (let off = 0; off < b.length; ) off += fs.writeSync(fd, b, off, b.length - off);
      counted(t);
    });
    if (!direct) fs.fsyncSync(fd);
    fs.closeSync(fd);
    done = true;
    if (!direct) fs.renameSync(target, file);
    return n;
  } catch (e) {
    if (!done) fs.closeSync(fd);
    if (!direct) {
      try {
        fs.unlinkSync(target);
      } catch {
        // already renamed or never created
      }
    }
    if (e instanceof AssignorError) throw e;
    throw cannotWrite(file, e, '--out');
  }
}
