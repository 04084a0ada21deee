// `assignor samza plan|expansion`: Samza job models with partition expansion.
//   plan: job.json (+ optional coordinator store dir) -> JobModel JSON on stdout, summary on stderr.
//   expansion: the key-movement analysis of going from B to C partitions with the task set fixed at B.
import { AssignorError, EXIT_FINDING, EXIT_OK } from '../errors.js';
import { analyzeExpansion, reassignWithKeyMovement } from '../expansion/index.js';
import { loadKernels } from '../engine/kernels.js';
import { CoordinatorStore } from '../store/index.js';
import { calculateJobModel, emptyPrevious, type MapperMode } from '../samza/plan.js';
import { prepareCycle, runCycle } from '../samza/cycle.js';
import { MemoryCoordinatorStore } from '../store/memory-store.js';
import { jobModelJsonBytes } from '../samza/job-model.js';
import { parseJobFile } from '../samza/job-file.js';
import { summarize } from '../samza/summary.js';
import { choiceOption, docPath, engineOption, intOption, missingSubcommand, parse, readJsonFile } from './args.js';
import { Output } from './output.js';
import { startProgress, type Progress } from './progress.js';
import { isKafkaLocation } from '../store/kafka-location.js';
import { formatPercent, INT32_MAX } from '../basics.js';

const HELP = `usage: assignor samza plan --job job.json [--store DIR|kafka://HOST:PORT/TOPIC] [options]
       assignor samza expansion --from B --to C [--json]
       assignor samza watch|import|export ... (assignor samza watch --help, assignor samza import --help)

plan: compute a Samza JobModel (containers -> tasks -> SSPs, changelog partitions, modes)
  --job FILE              Samza config plus each input stream's partition count (format: ${docPath('samza.md')})
  --store DIR             coordinator store directory: read the previous model, write the new one
                          (one batch; nothing is written when the model is unchanged)
  --dry-run               with --store: show what would change and write nothing (no lock taken)
  --repair                with --store: if the log is damaged (not an interrupted write), keep a
                          copy of it (coordinator.log.corrupt-<time>) and cut it at the damage
  --mapper base|samza     partition-expansion mapper; overrides the job file (default base)
  --allow-key-movement    base mapper: accept a partition count that is not a multiple of the base
  --engine E              wasm (default), wasm-simd, wasm-scalar or reference (runs the fold)
  --quiet                 no summary on stderr
  --no-progress           no progress bar (it only shows when stderr is a terminal, after 2 s)
  JobModel JSON on stdout; a summary (tasks, containers, what moved and why) on stderr.

expansion: what share of keys changes task when a stream goes from B to C partitions
  --from B --to C         base (task) count and new partition count, 1..2147483647
  --json                  the analysis as JSON
  Exit 0 when every key stays on its task, 1 when some would move.`;

const PLAN_OPTIONS = {
  job: { type: 'string' },
  store: { type: 'string' },
  'dry-run': { type: 'boolean' },
  repair: { type: 'boolean' },
  mapper: { type: 'string' },
  'allow-key-movement': { type: 'boolean' },
  engine: { type: 'string' },
  quiet: { type: 'boolean' },
  'no-progress': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const EXPANSION_OPTIONS = {
  from: { type: 'string' },
  to: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function run(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined) missingSubcommand('samza', ['plan', 'expansion', 'watch', 'import', 'export']);
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    process.stdout.write(`${HELP}\n`);
    return sub === undefined ? 2 : EXIT_OK;
  }
  if (sub === 'plan') return plan(rest);
  if (sub === 'expansion') return expansion(rest);
  // Coordinator commands (src/cli/samza-watch.ts, samza-import.ts).
  if (sub === 'watch') return (await import('./samza-watch.js')).watch(rest);
  if (sub === 'import') return (await import('./samza-import.js')).importCommand(rest);
  if (sub === 'export') return (await import('./samza-import.js')).exportCommand(rest);
  throw new AssignorError('E_USAGE', `unknown samza subcommand ${JSON.stringify(sub)}: expected plan, expansion, watch, import or export`);
}

type PlanValues = ReturnType<typeof parse<typeof PLAN_OPTIONS>>['values'];

async function plan(argv: string[]): Promise<number> {
  const { values } = parse(argv, PLAN_OPTIONS);
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return EXIT_OK;
  }
  if (values.job === undefined) throw new AssignorError('E_USAGE', '--job is required', '--job');
  if (values.job === '') throw new AssignorError('E_USAGE', '--job needs a file name, got an empty string', '--job');
  // An empty --store would silently make the current directory the store.
  if (values.store === '') throw new AssignorError('E_USAGE', '--store needs a directory, got an empty string', '--store');
  if (values.store === undefined && (values['dry-run'] || values.repair)) {
    throw new AssignorError('E_USAGE', `${values['dry-run'] ? '--dry-run' : '--repair'} needs --store (without a store nothing is written anyway)`, values['dry-run'] ? '--dry-run' : '--repair');
  }
  if (values['dry-run'] && values.repair) throw new AssignorError('E_USAGE', '--repair writes to the store, so it cannot be combined with --dry-run', '--repair');
  const engine = engineOption(values.engine);
  loadKernels({ engine });
  // Large jobs (a store of millions of SSPs, a JobModel of hundreds of MB) take seconds: a bar on a
  // terminal's stderr once the run has lasted 2 s (progress.ts), naming each step; it counts while
  // the JobModel is written. It is erased before the JobModel when that goes to the same terminal.
  const progress = startProgress('samza plan: reading the job', { enabled: values['no-progress'] !== true, ticker: true });
  progress.phase('samza plan: reading the job');
  try {
    return await planWith(values, engine, progress);
  } finally {
    progress.end();
  }
}

async function planWith(values: PlanValues, engine: ReturnType<typeof engineOption>, progress: Progress): Promise<number> {
  const job = parseJobFile(readJsonFile(values.job!));
  const mapper: MapperMode = values.mapper !== undefined ? choiceOption<MapperMode>(values.mapper, '--mapper', ['base', 'samza'], 'base') : (job.mapper ?? 'base');
  const options = {
    mapper,
    allowKeyMovement: values['allow-key-movement'] === true || job.allowKeyMovement === true,
    engine,
    ...(job.processors !== undefined ? { processors: job.processors } : {}),
  };
  let summary: string;
  let quietNote = '';
  let result;
  if (values.store !== undefined && isKafkaLocation(values.store)) {
    // The Kafka coordinator stream (src/cli/samza-watch.ts): the same cycle, committed as one transaction.
    if (values.repair) throw new AssignorError('E_USAGE', '--repair is for the file store: a Kafka coordinator stream has no log file to cut', '--repair');
    progress.phase('samza plan: reading, planning and writing the Kafka coordinator stream');
    ({ plan: result, summary } = await (await import('./samza-watch.js')).planOnKafkaStore(values.store, job, options, values['dry-run'] === true));
  } else if (values.store !== undefined && values['dry-run']) {
    progress.phase('samza plan: reading the store and planning (dry run)');
    const store = openForDryRun(values.store);
    try {
      const cycle = store === undefined ? prepareCycle(new MemoryCoordinatorStore(), job, options) : prepareCycle(store, job, options);
      result = cycle.plan;
      summary = summarize(cycle.plan, cycle) + (store === undefined ? `store: ${values.store} does not exist yet; a real run would create it\n` : '');
    } finally {
      store?.close();
    }
  } else if (values.store !== undefined) {
    progress.phase('samza plan: reading the store');
    const store = CoordinatorStore.open(values.store, { repair: values.repair === true });
    progress.phase('samza plan: planning and writing the store');
    let repaired = '';
    const r = store.openReport;
    if (r.backupPath !== undefined) repaired = `store: repaired: the damaged log was copied to ${r.backupPath} and cut at byte ${r.repairedAt} (${r.truncatedBytes} bytes dropped)\n`;
    try {
      const cycle = runCycle(store, job, options);
      result = cycle.plan;
      summary = repaired + summarize(cycle.plan, cycle);
    } finally {
      store.close();
    }
    // A repair is reported even with --quiet: it changed the store (after the bar is erased).
    if (values.quiet && repaired !== '') quietNote = repaired;
  } else {
    progress.phase('samza plan: planning');
    const warnings: string[] = [];
    result = calculateJobModel(job, emptyPrevious(), { ...options, warn: (w) => warnings.push(w) });
    summary = summarize(result) + warnings.map((w) => `warning: ${w}\n`).join('');
  }
  if (process.stdout.isTTY === true) progress.end();
  else progress.phase('samza plan: writing the JobModel', { unit: 'bytes' });
  const out = new Output(process.stdout);
  let written = 0;
  for (const piece of jobModelJsonBytes(result)) {
    await out.write(piece);
    written += piece.length;
    progress.tick(written);
  }
  await out.close();
  progress.end();
  if (!values.quiet) process.stderr.write(summary);
  else if (quietNote !== '') process.stderr.write(quietNote);
  return EXIT_OK;
}

function expansion(argv: string[]): number {
  const { values } = parse(argv, EXPANSION_OPTIONS);
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return EXIT_OK;
  }
  const from = intOption(values.from, '--from', 1, INT32_MAX);
  const to = intOption(values.to, '--to', 1, INT32_MAX);
  const a = analyzeExpansion(from, to);
  if (values.json) {
    process.stdout.write(`${JSON.stringify(a)}\n`);
  } else {
    const lines = [
      a.summary,
      `keys that change task: ${a.moved.numerator}/${a.moved.denominator} (${formatPercent(a.movedShare)})`,
      `partition counts that keep every key: ${a.nearestSafe.join(', ')}`,
    ];
    if (a.keepsEveryKey) lines.push(`base mapper: partition p joins the task of partition p mod ${from}`);
    else if (to <= 64) {
      const { slotOf } = reassignWithKeyMovement(from, to);
      lines.push(`with --allow-key-movement, partition -> task slot: ${Array.from(slotOf, (s, q) => `${q}->${s}`).join(' ')}`);
    } else lines.push('with --allow-key-movement, each new partition goes to a task that owns some of its keys, balanced');
    process.stdout.write(`${lines.join('\n')}\n`);
  }
  return a.keepsEveryKey ? EXIT_OK : EXIT_FINDING;
}

/** A dry run reads without the lock and never modifies the store; a store that does not exist yet reads as empty. */
function openForDryRun(dir: string): CoordinatorStore | undefined {
  try {
    return CoordinatorStore.open(dir, { readOnly: true });
  } catch (e) {
    if (e instanceof AssignorError && e.code === 'E_STORE_NOT_FOUND') return undefined;
    throw e;
  }
}
