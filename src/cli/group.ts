// `assignor group`: a consumer group's assignment for any language. Reads the group as JSON
// (docs/group.md), assigns it with one strategy, prints { strategy, assignment, report }; with
// --explain the same in words, with --html also a self-contained page.
import { AssignorError, describe } from '../errors.js';
import { assignGroup, CONSUMER_STRATEGIES, groupAssignmentJson, GROUP_PROTOCOLS, GROUP_STRATEGIES, type GroupProtocol, type GroupStrategy } from '../group/assign.js';
import { explainGroup } from '../group/explain.js';
import { groupHtml } from '../group/html.js';
import { GROUP_MAX_PARTITIONS } from '../group/input.js';
import { choiceOption, docPath, engineOption, intOption, parse, readJsonInput } from './args.js';
import { Output, writeHtmlFile } from './output.js';

const HELP = `usage: assignor group --input FILE [options]

  --input FILE         the group: { "topics": [{ name, partitions, racks?, id? }], "members": [{ id,
                       topics, rack?, instanceId?, owned?, generation? }] }; - reads stdin.
                       Format: ${docPath('group.md')}
  --protocol P         classic (default): the group leader assigns; consumer: KIP-848
                       (group.protocol=consumer), the broker assigns
  --strategy S         classic: sticky (default), assignor's sticky planner (keeps owned partitions,
                       balanced, rack-aware); range, round-robin: exactly Kafka's RangeAssignor (with
                       KIP-881 racks) and RoundRobinAssignor.
                       consumer: uniform (default), range: exactly the 4.4.0 broker's assignors;
                       sticky: what assignor's broker plugin (assignor-sticky, docs/broker.md) gives
  --explain            print what moved and why instead of JSON
  --html FILE          also write a self-contained page: members by topics, moved partitions marked
  --engine E           sticky's kernel: wasm (default), wasm-simd, wasm-scalar or reference
  --max-partitions N   refuse a group whose subscribed topics hold more than N partitions
                       (default ${GROUP_MAX_PARTITIONS}: what one output string can hold; see group.md)

Output: { "protocol", "strategy", "assignment": { member: { topic: [partitions] } }, "report" } on stdout.
Exit 2 on bad input, naming the place (members[3].id).`;

const OPTIONS = {
  input: { type: 'string' },
  protocol: { type: 'string' },
  strategy: { type: 'string' },
  explain: { type: 'boolean' },
  html: { type: 'string' },
  engine: { type: 'string' },
  'max-partitions': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function run(argv: string[]): Promise<number> {
  const { values } = parse(argv, OPTIONS);
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  if (values.input === undefined) throw new AssignorError('E_USAGE', '--input is required (a group JSON file, or - for stdin)', '--input');
  if (values.html === '-') throw new AssignorError('E_USAGE', '--html needs a file name: stdout already carries the JSON', '--html');
  const protocol = choiceOption<GroupProtocol>(values.protocol, '--protocol', GROUP_PROTOCOLS, 'classic');
  const strategy = strategyOption(protocol, values.strategy);
  const engine = engineOption(values.engine);
  const maxPartitions = values['max-partitions'] === undefined ? GROUP_MAX_PARTITIONS : intOption(values['max-partitions'], '--max-partitions', 1, Number.MAX_SAFE_INTEGER);
  const spec = readJsonInput(values.input, '--input');
  const result = withFlagNames(() => assignGroup(spec, { protocol, strategy, engine, maxPartitions }));
  if (values.html !== undefined) writeHtmlFile(values.html, groupHtml(result));
  const out = new Output(process.stdout);
  await out.write(values.explain ? `${explainGroup(result).join('\n')}\n` : `${groupAssignmentJson(result)}\n`);
  await out.close();
  return 0;
}

/** The strategy, one of its protocol's. */
function strategyOption(protocol: GroupProtocol, value: string | undefined): GroupStrategy {
  const strategies: readonly GroupStrategy[] = protocol === 'classic' ? GROUP_STRATEGIES : CONSUMER_STRATEGIES;
  if (value === undefined || strategies.includes(value as GroupStrategy)) return (value ?? strategies[0]!) as GroupStrategy;
  throw new AssignorError('E_USAGE', `--strategy must be one of ${strategies.join(', ')} with --protocol ${protocol}, got ${describe(value)}`, '--strategy');
}

/** The library names its option (maxPartitions); a command line user needs the flag. */
function withFlagNames<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof AssignorError && e.code === 'E_TOO_LARGE') throw new AssignorError(e.code, e.message.replace('the maxPartitions option', '--max-partitions'), e.path);
    throw e;
  }
}
