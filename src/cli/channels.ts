// `assignor channels plan|validate|expand`: partition sets for parallel consumer
// channels (IBM Streams @parallel regions, or any fleet calling assign()).
import { AssignorError, EXIT_FINDING, EXIT_OK } from '../errors.js';
import { planChannels, STRATEGIES, MAX_PLAN_PARTITIONS, MAX_WIDTH, type ChannelPlan, type Strategy } from '../channels/plan.js';
import { planJsonText, planToJson } from '../channels/json.js';
import { validatePlan, reportJsonText } from '../channels/validate.js';
import { expandPlan, type Expansion } from '../channels/expand.js';
import { emitSpl } from '../channels/spl.js';
import { planTable, reportTable } from '../channels/table.js';
import { choiceOption, docPath, engineOption, intOption, missingSubcommand, parse, readJsonFile } from './args.js';
import { Output } from './output.js';

const HELP = `usage: assignor channels <plan|validate|expand> [options]

  assignor channels plan --partitions N --width W [--strategy S] [--topic NAME] [--emit FORMAT]
      Which partitions each of W channels consumes.
      --strategy S     contiguous (default: blocks, the first N mod W one larger),
                       round-robin (p -> p mod W), flink (Flink's Kafka source rule; needs --topic)
      --topic NAME     topic name (used by flink and in SPL)
  assignor channels validate PLAN.json --partitions N [--emit json|table]
      Checks a (hand-written) plan against the topic's real partition count.
      Exit 1 when data would be lost or read twice (missing, duplicated or out-of-range ids), 0 when sound.
  assignor channels expand PLAN.json --partitions N2 [--allow-key-movement] [--emit FORMAT]
      Grows the plan to N2 partitions with the same width, keeping every key on its channel
      (N2 must be a multiple of the plan's base count unless --allow-key-movement).

  --emit FORMAT    json (default for plan/expand), spl (paste into Streams), table (one row per channel)
  --fixed-arity    spl: pad short channels to the same list length by repeating a partition (4, 4)
  --engine E       wasm (default), wasm-simd, wasm-scalar or reference

Plan and report formats: ${docPath('channels.md')}.`;

const OPTIONS = {
  partitions: { type: 'string' },
  width: { type: 'string' },
  strategy: { type: 'string' },
  topic: { type: 'string' },
  emit: { type: 'string' },
  'fixed-arity': { type: 'boolean' },
  'allow-key-movement': { type: 'boolean' },
  engine: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Emit = 'json' | 'spl' | 'table';
const EMITS: readonly Emit[] = ['json', 'spl', 'table'];

export async function run(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined) missingSubcommand('channels', ['plan', 'validate', 'expand']);
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    process.stdout.write(`${HELP}\n`);
    return sub === undefined ? 2 : EXIT_OK;
  }
  const { values, positionals } = parse(rest, OPTIONS, true);
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return EXIT_OK;
  }
  const engine = engineOption(values.engine);
  const out = new Output(process.stdout);
  let code: number;
  switch (sub) {
    case 'plan': {
      noPositionals(positionals, 'plan');
      const plan = planChannels({
        partitions: intOption(values.partitions, '--partitions', 1, MAX_PLAN_PARTITIONS),
        width: intOption(values.width, '--width', 1, MAX_WIDTH),
        strategy: choiceOption<Strategy>(values.strategy, '--strategy', STRATEGIES, 'contiguous'),
        ...(values.topic !== undefined ? { topic: values.topic } : {}),
        engine,
      });
      await out.write(render(plan, emitOf(values.emit, 'json'), !!values['fixed-arity']));
      code = EXIT_OK;
      break;
    }
    case 'validate': {
      const file = onePlanFile(positionals, 'validate');
      const n = intOption(values.partitions, '--partitions', 1, MAX_PLAN_PARTITIONS);
      const emit = emitOf(values.emit, 'table');
      if (emit === 'spl') throw new AssignorError('E_USAGE', 'validate emits json or table', '--emit');
      const report = validatePlan(readJsonFile(file), n, { engine });
      await out.write(emit === 'json' ? reportJsonText(report) : reportTable(report));
      code = report.sound ? EXIT_OK : EXIT_FINDING;
      break;
    }
    case 'expand': {
      const file = onePlanFile(positionals, 'expand');
      const n2 = intOption(values.partitions, '--partitions', 1, MAX_PLAN_PARTITIONS);
      let x: Expansion;
      try {
        x = expandPlan(readJsonFile(file), n2, { engine, allowKeyMovement: !!values['allow-key-movement'] });
      } catch (e) {
        if (e instanceof AssignorError && e.code === 'E_KEY_MOVEMENT') {
          throw new AssignorError(e.code, e.message.replace('pass allowKeyMovement', 'pass --allow-key-movement'), '--partitions');
        }
        throw e;
      }
      await out.write(renderExpansion(x, emitOf(values.emit, 'json'), !!values['fixed-arity']));
      code = EXIT_OK;
      break;
    }
    default:
      throw new AssignorError('E_USAGE', `unknown channels command ${JSON.stringify(sub)}; expected plan, validate or expand`);
  }
  await out.close();
  return code;
}

function emitOf(v: string | undefined, fallback: Emit): Emit {
  return choiceOption<Emit>(v, '--emit', EMITS, fallback);
}

function noPositionals(p: string[], cmd: string): void {
  if (p.length > 0) throw new AssignorError('E_USAGE', `channels ${cmd} takes no file argument, got ${JSON.stringify(p[0])}`);
}

function onePlanFile(p: string[], cmd: string): string {
  if (p.length !== 1) throw new AssignorError('E_USAGE', `channels ${cmd} needs exactly one PLAN.json argument, got ${p.length}`);
  if (p[0] === '') throw new AssignorError('E_USAGE', `channels ${cmd} needs a PLAN.json file name, got an empty string`);
  return p[0]!;
}

function render(plan: ChannelPlan, emit: Emit, fixedArity: boolean): string {
  if (emit === 'spl') return emitSpl(plan, { fixedArity });
  if (emit === 'table') return planTable(plan);
  return planJsonText(planToJson(plan));
}

function renderExpansion(x: Expansion, emit: Emit, fixedArity: boolean): string {
  // A key-moving expansion already carries its summary as a plan warning, which both forms print.
  const head = x.plan.warnings.includes(x.summary) ? '' : x.summary;
  if (emit === 'spl') return `${head === '' ? '' : `// ${head}\n`}${emitSpl(x.plan, { fixedArity })}`;
  if (emit === 'table') return `${head === '' ? '' : `${head}\n`}${planTable(x.plan)}`;
  const json = planToJson(x.plan);
  json.expansion = {
    from: x.from,
    to: x.to,
    keepsEveryKey: x.keepsEveryKey,
    keysChangingChannel: x.keysChangingChannel,
    moved: Array.from(x.moved.partitions, (p, i) => ({ partition: p, from: x.moved.from[i]!, to: x.moved.to[i]! })),
    summary: x.summary,
  };
  return planJsonText(json);
}
