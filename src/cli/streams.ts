// `assignor streams`: a Kafka Streams group's assignment (KIP-1071 streams groups), what the broker
// plugin answers, previewed from JSON: sticky balanced actives, KIP-708 standbys per member.
import { AssignorError } from '../errors.js';
import { assignStreams, STREAMS_MODES } from '../streams/assign.js';
import type { StreamsMode } from '../streams/assignment.js';
import { readStreamsGroup } from '../streams/input.js';
import { choiceOption, docPath, engineOption, parse, readJsonInput } from './args.js';
import { Output, writeHtmlFile } from './output.js';

const HELP = `usage: assignor streams --input FILE [options]

  --input FILE         the group: { "subtopologies": [{ id, partitions, stateful? }], "processes":
                       [{ id, tags?, members: [{ id, active?, standby?, offsets? }] }], "numStandbys"?,
                       "tagKeys"? }; - reads stdin. Format: ${docPath('streams.md')}
  --mode M             balanced (default): KIP-708 standbys with the best tag spread, previous
                       standbys kept where the tags allow; kafka: standbys exactly where Kafka
                       Streams' ClientTagAwareStandbyTaskAssignor puts them; broker: exactly what
                       the 4.4 broker's own StickyTaskAssignor answers (tag-blind); tag-aware: the
                       broker's answer with its standbys moved over the tags, never a narrower
                       spread than the broker's on any task, loads inside the broker's range
  --explain            print the assignment in words instead of JSON
  --html FILE          also write a self-contained page of the processes and their tasks
  --engine E           wasm (default), wasm-simd, wasm-scalar or reference

Output: { "mode", "numStandbys", "tagKeys", "totals", "againstBroker", "members": [{ id, process, active,
standby }] }
on stdout. Exit 2 on bad input, naming the place (processes[3].members[0].active[2]).`;

const OPTIONS = {
  input: { type: 'string' },
  mode: { type: 'string' },
  explain: { type: 'boolean' },
  html: { type: 'string' },
  engine: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function run(argv: string[]): Promise<number> {
  const { values } = parse(argv, OPTIONS);
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  if (values.input === undefined) throw new AssignorError('E_USAGE', '--input is required (a streams group JSON file, or - for stdin)', '--input');
  if (values.html === '-') throw new AssignorError('E_USAGE', '--html needs a file name: stdout already carries the JSON', '--html');
  const mode = choiceOption<StreamsMode>(values.mode, '--mode', STREAMS_MODES, 'balanced');
  const engine = engineOption(values.engine);
  const result = assignStreams(readStreamsGroup(readJsonInput(values.input, '--input')), { mode, engine });
  if (values.html !== undefined) writeHtmlFile(values.html, result.html());
  const out = new Output(process.stdout);
  await out.write(values.explain ? result.explain() : `${JSON.stringify(result.report(), null, 2)}\n`);
  await out.close();
  return 0;
}
