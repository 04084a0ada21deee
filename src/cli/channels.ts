// `assignor channels plan|validate|expand|rewidth`: partition sets for parallel
// consumer channels (IBM Streams @parallel regions, or any fleet calling assign()).
// Every output is written in pieces with backpressure, so a plan of 67 million
// partitions or channels streams in bounded memory instead of being one string.
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { formatPercent, INT32_MAX } from '../basics.js';
import { AssignorError, EXIT_FINDING, EXIT_OK, describe } from '../errors.js';
import { planChannels, STRATEGIES, MAX_PLAN_PARTITIONS, MAX_WIDTH, type ChannelPlan, type Strategy } from '../channels/plan.js';
import { planChunks, readPlan, type PlanInput } from '../channels/json.js';
import { findings, reportJsonChunks } from '../channels/validate.js';
import { expandInput, type Expansion } from '../channels/expand.js';
import { rewidthInput, type Rewidth } from '../channels/rewidth.js';
import { splChunks, type ConsistentTrigger, type SplOptions } from '../channels/spl.js';
import { planTableChunks, reportTableOf } from '../channels/table.js';
import { choiceOption, docPath, engineOption, intOption, missingSubcommand, parse } from './args.js';
import { parseJsonText } from './json-text.js';
import { Output } from './output.js';
import { startProgress, type Progress } from './progress.js';

const HELP = `usage: assignor channels <plan|validate|expand|rewidth> [options]

  assignor channels plan --partitions N --width W [--strategy S] [--topic NAME] [--emit FORMAT]
      Which partitions each of W channels consumes.
      --strategy S     contiguous (default: blocks, the first N mod W one larger),
                       round-robin (p -> p mod W), flink (Flink's Kafka source rule; needs --topic)
      --topic NAME     topic name (used by flink and in SPL; may start with -)
  assignor channels validate PLAN.json --partitions N [--emit json|table]
      Checks a (hand-written) plan against the topic's real partition count.
      Exit 1 when data would be lost or read twice (missing, duplicated or out-of-range ids), 0 when sound.
  assignor channels expand PLAN.json --partitions N2 [--allow-key-movement] [--emit FORMAT]
      Grows the plan to N2 partitions with the same width, keeping every key on its channel
      (N2 must be a multiple of the plan's base count unless --allow-key-movement).
  assignor channels rewidth PLAN.json --width W2 [--partitions N] [--emit FORMAT]
      The plan at another width: which partitions and keys change channel, and the
      widths that move nothing or the least. (--partitions when the plan does not say.)

  PLAN.json may be - to read the plan from standard input.
  --emit FORMAT    json (default for plan/expand/rewidth), spl (paste into Streams), table (one row per channel)
  --engine E       wasm (default), wasm-simd, wasm-scalar or reference
  --no-progress    no progress bar (it only shows when stderr is a terminal, after 2 s)

  SPL (--emit spl):
  --fixed-arity    pad lists that differ in length to the longest by repeating the first partition
                   (4, 4); a one-partition topic gets 0, 0; equal lists stay as they are
  --arity K        pad every list to K entries
  --composite      the document's composites: SinglePartitionConsumer, TwoPartitionConsumer, PartitionConsumerK
  --submission-time
                   one file for any width: $width and $nPartitions from getSubmissionTimeValue,
                   with a guard that fails the job when the partition count differs
  --min-width W    with --submission-time: the smallest width the file serves (default: the plan's)
  --consistent-region operator-driven|periodic
                   @consistent, one region per channel, and the JobControlPlane
  --trigger-count N  tuples per consistent state (operator-driven; default 1000)
  --period S       seconds between consistent states (periodic; default 60.0)
  --group-id G     groupId of every consumer (kept for committed offsets)

Plan and report formats: ${docPath('channels.md')}.`;

const OPTIONS = {
  partitions: { type: 'string' },
  width: { type: 'string' },
  strategy: { type: 'string' },
  topic: { type: 'string' },
  emit: { type: 'string' },
  'fixed-arity': { type: 'boolean' },
  arity: { type: 'string' },
  composite: { type: 'boolean' },
  'submission-time': { type: 'boolean' },
  'min-width': { type: 'string' },
  'consistent-region': { type: 'string' },
  'trigger-count': { type: 'string' },
  period: { type: 'string' },
  'group-id': { type: 'string' },
  'allow-key-movement': { type: 'boolean' },
  engine: { type: 'string' },
  'no-progress': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parse<typeof OPTIONS>>['values'];
export type Emit = 'json' | 'spl' | 'table';
const EMITS: readonly Emit[] = ['json', 'spl', 'table'];
const SPL_ONLY = ['fixed-arity', 'arity', 'composite', 'submission-time', 'min-width', 'consistent-region', 'trigger-count', 'period', 'group-id'] as const;

export async function run(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined) missingSubcommand('channels', ['plan', 'validate', 'expand', 'rewidth']);
  if (sub === '--help' || sub === '-h' || sub === 'help') {
    process.stdout.write(`${HELP}\n`);
    return EXIT_OK;
  }
  const { values, positionals } = parse(joinDashValues(rest), OPTIONS, true);
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return EXIT_OK;
  }
  const engine = engineOption(values.engine);
  // Plans of tens of millions of partitions take seconds to read, compute and write: a bar on a
  // terminal's stderr once the run has lasted 2 s, naming the step. It is erased before anything goes
  // to stdout when stdout is the same terminal.
  const progress = startProgress(`channels ${sub}`, { enabled: values['no-progress'] !== true });
  try {
    return await runSub(sub, values, positionals, engine, progress);
  } finally {
    progress.end();
  }
}

async function runSub(sub: string, values: Values, positionals: string[], engine: ReturnType<typeof engineOption>, progress: Progress): Promise<number> {
  const out = new Output(process.stdout);
  let code = EXIT_OK;
  switch (sub) {
    case 'plan': {
      noPositionals(positionals, 'plan');
      const emit = emitOf(values, 'json');
      const spl = splOptions(values);
      progress.phase('channels plan: planning');
      const plan = planChannels({
        partitions: intOption(values.partitions, '--partitions', 1, MAX_PLAN_PARTITIONS),
        width: intOption(values.width, '--width', 1, MAX_WIDTH),
        strategy: choiceOption<Strategy>(values.strategy, '--strategy', STRATEGIES, 'contiguous'),
        ...(values.topic !== undefined ? { topic: values.topic } : {}),
        engine,
      });
      await writeAll(out, render(plan, emit, spl), progress, 'channels plan');
      break;
    }
    case 'validate': {
      const file = onePlanFile(positionals, 'validate');
      const n = intOption(values.partitions, '--partitions', 1, MAX_PLAN_PARTITIONS);
      const emit = emitOf(values, 'table');
      if (emit === 'spl') throw new AssignorError('E_USAGE', 'validate emits json or table', '--emit');
      const input = readPlanArg(file, progress, 'channels validate');
      progress.phase('channels validate: checking the plan');
      const f = findings(input, n, { engine });
      await writeAll(out, emit === 'json' ? reportJsonChunks(f) : [reportTableOf(f)], progress, 'channels validate');
      code = f.sound ? EXIT_OK : EXIT_FINDING;
      break;
    }
    case 'expand': {
      const file = onePlanFile(positionals, 'expand');
      const n2 = intOption(values.partitions, '--partitions', 1, MAX_PLAN_PARTITIONS);
      const emit = emitOf(values, 'json');
      const spl = splOptions(values);
      const input = readPlanArg(file, progress, 'channels expand');
      progress.phase('channels expand: expanding the plan');
      let x: Expansion;
      try {
        x = expandInput(input, n2, { engine, allowKeyMovement: !!values['allow-key-movement'] });
      } catch (e) {
        if (e instanceof AssignorError && e.code === 'E_KEY_MOVEMENT') {
          throw new AssignorError(e.code, e.message.replace('pass allowKeyMovement', 'pass --allow-key-movement'), '--partitions');
        }
        throw e;
      }
      await writeAll(out, renderExpansion(x, emit, spl), progress, 'channels expand');
      break;
    }
    case 'rewidth': {
      const file = onePlanFile(positionals, 'rewidth');
      const w2 = intOption(values.width, '--width', 1, MAX_WIDTH);
      const emit = emitOf(values, 'json');
      const spl = splOptions(values);
      const partitions = values.partitions !== undefined ? { partitions: intOption(values.partitions, '--partitions', 1, MAX_PLAN_PARTITIONS) } : {};
      const input = readPlanArg(file, progress, 'channels rewidth');
      progress.phase('channels rewidth: replanning and comparing');
      const r = rewidthInput(input, w2, { engine, ...partitions });
      await writeAll(out, renderRewidth(r, emit, spl), progress, 'channels rewidth');
      break;
    }
    default:
      throw new AssignorError('E_USAGE', `unknown channels command ${describe(sub)}; expected plan, validate, expand or rewidth`);
  }
  await out.close();
  return code;
}

/**
 * Kafka topic names may start with `-` (and so may group ids), which the option
 * parser would read as another option: a string option's next argument is its
 * value unless it is one of our own options.
 */
function joinDashValues(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      out.push(...args.slice(i));
      break;
    }
    const name = a.startsWith('--') ? a.slice(2) : '';
    const next = args[i + 1];
    if (name !== '' && Object.hasOwn(OPTIONS, name) && OPTIONS[name as keyof typeof OPTIONS].type === 'string' && next !== undefined && next.startsWith('-') && !isOurOption(next)) {
      out.push(`${a}=${next}`);
      i++;
    } else out.push(a);
  }
  return out;
}

function isOurOption(arg: string): boolean {
  if (arg === '-h' || arg === '--') return true;
  if (!arg.startsWith('--')) return false;
  const name = arg.slice(2).split('=')[0]!;
  return Object.hasOwn(OPTIONS, name);
}

function emitOf(values: Values, fallback: Emit): Emit {
  const emit = choiceOption<Emit>(values.emit, '--emit', EMITS, fallback);
  if (emit !== 'spl') {
    for (const o of SPL_ONLY) if (values[o] !== undefined) throw new AssignorError('E_USAGE', `--${o} shapes the SPL output; add --emit spl`, `--${o}`);
  }
  return emit;
}

function splOptions(values: Values): SplOptions {
  const o: SplOptions = {};
  if (values['fixed-arity']) o.fixedArity = true;
  if (values.arity !== undefined) o.arity = intOption(values.arity, '--arity', 1, MAX_PLAN_PARTITIONS);
  if (values.composite) o.composite = true;
  if (values['submission-time']) o.submissionTime = true;
  if (values['min-width'] !== undefined) {
    if (!values['submission-time']) throw new AssignorError('E_USAGE', '--min-width applies to --submission-time', '--min-width');
    o.minWidth = intOption(values['min-width'], '--min-width', 1, MAX_WIDTH);
  }
  if (values['consistent-region'] !== undefined) {
    const t = choiceOption(values['consistent-region'], '--consistent-region', ['operator-driven', 'periodic'] as const, 'operator-driven');
    o.consistentRegion = (t === 'operator-driven' ? 'operatorDriven' : 'periodic') satisfies ConsistentTrigger;
  }
  if (values['trigger-count'] !== undefined) {
    if (o.consistentRegion !== 'operatorDriven') throw new AssignorError('E_USAGE', '--trigger-count applies to --consistent-region operator-driven', '--trigger-count');
    o.triggerCount = intOption(values['trigger-count'], '--trigger-count', 1, INT32_MAX);
  }
  if (values.period !== undefined) {
    if (o.consistentRegion !== 'periodic') throw new AssignorError('E_USAGE', '--period applies to --consistent-region periodic', '--period');
    const p = values.period.trim();
    if (!/^\d+(\.\d+)?$/.test(p) || Number(p) <= 0 || Number(p) > 1e9) throw new AssignorError('E_USAGE', `--period must be a positive number of seconds, got ${describe(values.period)}`, '--period');
    o.period = Number(p);
  }
  if (values['group-id'] !== undefined) o.groupId = values['group-id'];
  return o;
}

function noPositionals(p: string[], cmd: string): void {
  if (p.length > 0) throw new AssignorError('E_USAGE', `channels ${cmd} takes no file argument, got ${describe(p[0])}`);
}

function onePlanFile(p: string[], cmd: string): string {
  if (p.length !== 1) throw new AssignorError('E_USAGE', `channels ${cmd} needs exactly one PLAN.json argument (or - for standard input), got ${p.length}`);
  if (p[0] === '') throw new AssignorError('E_USAGE', `channels ${cmd} needs a PLAN.json file name, got an empty string`);
  return p[0]!;
}

/** V8's longest string (2^29 - 24 characters): a plan is parsed from one string. */
const MAX_TEXT = (1 << 29) - 24;

/** Reads and parses the plan file, `-` meaning standard input; errors name the file. */
function readPlanArg(file: string, progress: Progress, command: string): PlanInput {
  const name = file === '-' ? 'standard input' : file;
  const bytes = file === '-' ? readStdin(name, progress, command) : readFileBounded(file, progress, command);
  progress.phase(`${command}: parsing ${name}`);
  return readPlan(parseJsonText(bytes.toString('utf8'), name));
}

function readFileBounded(file: string, progress: Progress, command: string): Buffer {
  let fd: number;
  let size: number;
  try {
    const st = statSync(file);
    size = st.size;
    if (st.isDirectory()) throw new AssignorError('E_INPUT', `cannot read ${file}: it is a directory`, file);
    if (st.size > MAX_TEXT) throw tooLarge(file, st.size);
    fd = openSync(file, 'r');
    progress.phase(`${command}: reading ${file}`, { total: st.size, unit: 'bytes' });
  } catch (e) {
    if (e instanceof AssignorError) throw e;
    throw new AssignorError('E_INPUT', `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, file);
  }
  try {
    return readAll(fd, file, progress, size);
  } finally {
    closeSync(fd);
  }
}

function readStdin(name: string, progress: Progress, command: string): Buffer {
  progress.phase(`${command}: reading ${name}`, { unit: 'bytes' });
  return readAll(0, name, progress);
}

/**
 * Reads a descriptor to its end, refusing more than MAX_TEXT bytes (pipes have no size to check first).
 * With `expected` (a file's size from stat), the first read goes into one buffer of that size plus a
 * byte: a file read whole needs no second buffer and no concatenation (a 7 MB plan: ~5 ms of a cold run).
 */
function readAll(fd: number, name: string, progress: Progress, expected = 0): Buffer {
  const parts: Buffer[] = [];
  let total = 0;
  let sleeper: Int32Array | undefined;
  for (;;) {
    // The extra byte tells a file read whole (a short read at EOF) from one that grew since stat.
    const buf = Buffer.allocUnsafe(parts.length === 0 && expected > 0 ? expected + 1 : 1 << 20);
    let got: number;
    try {
      got = readSync(fd, buf, 0, buf.length, null);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN') {
        sleeper ??= new Int32Array(new SharedArrayBuffer(4));
        Atomics.wait(sleeper, 0, 0, 5); // a non-blocking pipe with nothing yet: wait a little
        continue;
      }
      if (code === 'EOF') break;
      throw new AssignorError('E_INPUT', `cannot read ${name}: ${code ?? (e as Error).message}`, name);
    }
    if (got === 0) break;
    total += got;
    if (total > MAX_TEXT) throw tooLarge(name, total);
    parts.push(buf.subarray(0, got));
    progress.tick(total);
  }
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts, total);
}

function tooLarge(name: string, size: number): AssignorError {
  return new AssignorError(
    'E_TOO_LARGE',
    `${name} holds at least ${Math.floor(size / 1048576)} MiB; a plan is read as one JSON text of at most 512 MiB (plans of more than about 50 million partitions can be written but not read back)`,
    name,
  );
}

/** Writes the pieces in chunks with backpressure, counting them on the progress bar. */
async function writeAll(out: Output, pieces: Iterable<string>, progress: Progress, command: string): Promise<void> {
  if (process.stdout.isTTY === true) progress.end();
  else progress.phase(`${command}: writing`, { unit: 'chars' });
  let buf = '';
  let written = 0;
  for (const p of pieces) {
    buf += p;
    if (buf.length >= 1 << 16) {
      await out.write(buf);
      written += buf.length;
      progress.tick(written);
      buf = '';
    }
  }
  if (buf !== '') await out.write(buf);
}

function render(plan: ChannelPlan, emit: Emit, spl: SplOptions, heading = ''): Iterable<string> {
  if (emit === 'spl') return prefixed(heading === '' ? '' : `// ${heading}\n`, splChunks(plan, spl));
  if (emit === 'table') return prefixed(heading === '' ? '' : `${heading}\n`, planTableChunks(plan));
  return planChunks(plan);
}

function* prefixed(head: string, rest: Iterable<string>): Generator<string> {
  if (head !== '') yield head;
  yield* rest;
}

export function renderExpansion(x: Expansion, emit: Emit, spl: SplOptions): Iterable<string> {
  // A key-moving expansion already carries its summary as a plan warning, which both forms print.
  const head = x.plan.warnings.includes(x.summary) ? '' : x.summary;
  if (emit !== 'json') return render(x.plan, emit, spl, head);
  const marker = '\u0000moved';
  const expansion = { from: x.from, to: x.to, keepsEveryKey: x.keepsEveryKey, keysChangingChannel: x.keysChangingChannel, moved: marker, summary: x.summary };
  const m = x.moved;
  return planChunks(x.plan, { expansion }, { marker, count: m.partitions.length, item: (i) => ({ partition: m.partitions[i]!, from: m.from[i]!, to: m.to[i]! }) });
}

export function renderRewidth(r: Rewidth, emit: Emit, spl: SplOptions): Iterable<string> {
  if (emit === 'spl') return render(r.plan, emit, spl, r.summary);
  if (emit === 'table') {
    const rows = [r.summary];
    const m = r.moved;
    for (let i = 0; i < Math.min(20, m.partitions.length); i++) rows.push(`moved        partition ${m.partitions[i]} from channel ${m.from[i]} to ${m.to[i]}`);
    if (m.partitions.length > 20) rows.push(`moved        ... ${m.partitions.length - 20} more`);
    for (const p of r.proposals) rows.push(`proposal     width ${p.width}: ${p.partitionsChangingChannel} partition(s) change channel (${formatPercent(p.keysChangingChannel, { digits: 2 })} of keys)`);
    return prefixed(`${rows.join('\n')}\n`, planTableChunks(r.plan));
  }
  const marker = '\u0000moved';
  const rewidth = {
    from: r.from,
    to: r.to,
    partitionsChangingChannel: r.moved.partitions.length,
    keysChangingChannel: r.keysChangingChannel,
    moved: marker,
    proposals: r.proposals,
    checked: r.checked,
    summary: r.summary,
  };
  const m = r.moved;
  return planChunks(r.plan, { rewidth }, { marker, count: m.partitions.length, item: (i) => ({ partition: m.partitions[i]!, from: m.from[i]!, to: m.to[i]! }) });
}
