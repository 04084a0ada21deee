// `assignor standby`: rack-aware standby placement (KIP-708) for a cluster
// described in JSON. Prints the placement as JSON, or with --explain a summary
// for people; --html writes a self-contained report page.
import { fstatSync, write } from 'node:fs';
import { AssignorError } from '../errors.js';
import { placeCluster, type Mode } from '../standby/place.js';
import { normalizeCluster } from '../standby/normalize.js';
import { reportJson } from '../standby/report-json.js';
import { explainLines } from '../standby/explain.js';
import { htmlReport } from '../standby/html-report.js';
import { choiceOption, docPath, engineOption, parse, readJsonInput } from './args.js';
import { Output, writeHtmlFile } from './output.js';
import { startProgress } from './progress.js';

const HELP = `usage: assignor standby --input cluster.json [options]

  --input FILE         the cluster (clients, tags, capacities, actives, tasks, standby count);
                       - reads stdin. Format: ${docPath('standby.md')}
  --mode M             balanced (default): best tag spread, a real search over keys in
                       precedence order, then least loaded; kafka: exactly what Kafka
                       Streams' ClientTagAwareStandbyTaskAssignor / DefaultStandbyTaskAssignor place
  --explain            print a readable per-task / per-tag / per-client summary instead of JSON
  --html FILE          also write a self-contained HTML report (opens without network)
  --engine E           wasm (default), wasm-simd, wasm-scalar or reference
  --no-zero-guard      kafka mode: with num.standby.replicas = 0, reproduce the tag-aware
                       do-while that still places one standby per task (quirk X04)
  --no-progress        no progress bar (it only shows when stderr is a terminal, after 2 s)

Output: the placement as JSON on stdout. Exit 2 on bad input, naming the place (clients[3].tags.zone).`;

const OPTIONS = {
  input: { type: 'string' },
  mode: { type: 'string' },
  explain: { type: 'boolean' },
  html: { type: 'string' },
  engine: { type: 'string' },
  'no-zero-guard': { type: 'boolean' },
  'no-progress': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function run(argv: string[]): Promise<number> {
  const { values } = parse(argv, OPTIONS);
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  if (values.input === undefined) throw new AssignorError('E_USAGE', '--input is required (a cluster JSON file, or - for stdin)', '--input');
  // Refused before the placement runs: at a million tasks that takes seconds.
  if (values.html === '-') throw new AssignorError('E_USAGE', '--html needs a file name: stdout already carries the JSON report', '--html');
  const mode = choiceOption<Mode>(values.mode, '--mode', ['balanced', 'kafka'], 'balanced');
  const engine = engineOption(values.engine); // also fails early on an engine this runtime lacks
  // A bar on a terminal's stderr once the run has lasted 2 s (progress.ts): the
  // placement is one synchronous step, so it moves while the report is written.
  const progress = startProgress('standby: placing, then writing the report', { unit: 'tasks', enabled: !values['no-progress'] && process.stdout.isTTY !== true });
  try {
    const cluster = normalizeCluster(readJsonInput(values.input, '--input'));
    const placement = placeCluster(cluster, mode, { engine, zeroStandbyGuard: !values['no-zero-guard'] });
    // The count from the flat problem: cluster.tasks would make a TaskId object per task.
    progress.tick(0, placement.flat.problem.tasks);
    // The explain text and the HTML page need the report objects; the JSON is written from the typed arrays.
    const report = values.explain || values.html !== undefined ? placement.report() : undefined;
    if (values.html !== undefined) writeHtmlFile(values.html, htmlReport(report!));
    const out = new Output(process.stdout);
    // Written in pieces: a million-task report is longer than the longest string V8 can build.
    if (values.explain) {
      let batch = '';
      for (const piece of withNewlines(explainLines(report!))) {
        batch += piece;
        if (batch.length >= 1 << 20) {
          await out.write(batch);
          batch = '';
        }
      }
      await out.write(batch);
    } else if (isFile(1)) {
      // A file: each piece written from the report's own buffers while the next is built.
      await writeToFile(1, reportJson(placement, placement.kafka(), 4 << 20, (done) => progress.tick(done), { reuse: true }));
    } else {
      for (const piece of placement.reportJson(1 << 20, (done) => progress.tick(done))) await out.write(piece);
    }
    await out.close();
  } finally {
    progress.end();
  }
  return 0;
}

function isFile(fd: number): boolean {
  try {
    return fstatSync(fd).isFile();
  } catch {
    return false;
  }
}

/** One piece at a time in flight (fs.write on libuv's pool), so a piece is never changed while it is written (reportJson's reuse). */
async function writeToFile(fd: number, pieces: Iterable<Uint8Array>): Promise<void> {
  let pending: Promise<void> | undefined;
  for (const piece of pieces) {
    await pending;
    pending = writeAll(fd, piece);
  }
  await pending;
}

function writeAll(fd: number, bytes: Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    const from = (at: number): void => {
      if (at === bytes.length) return resolve();
      write(fd, bytes, at, bytes.length - at, null, (e, n) => {
        if (e) reject(new AssignorError('E_OUTPUT', `cannot write the report to stdout: ${e.code ?? e.message}`, 'stdout'));
        else from(at + n);
      });
    };
    from(0);
  });
}

function* withNewlines(lines: Iterable<string>): Generator<string> {
  for (const line of lines) yield `${line}\n`;
}
