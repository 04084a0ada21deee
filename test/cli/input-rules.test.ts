// Issue 34: one rule for each input question, the same for every command (docs/formats.md, "One
// rule for each input question"). Here: null in an optional field is the same as leaving it out.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, cli } from '../helpers.js';

/** The same command on two inputs: the same stdout, stderr and exit code. */
function same(args: string[], plain: string, withNulls: string): void {
  const a = cli(args, plain);
  const b = cli(args, withNulls);
  expect(a.status, a.stderr).toBe(0);
  expect([b.status, b.stderr, b.stdout]).toEqual([a.status, a.stderr, a.stdout]);
}

describe('null is absent, for every command', () => {
  it('group: generation, owned, rack, instanceId, previousPartitions and racks', () => {
    same(
      ['group', '--input', '-', '--strategy', 'range'],
      '{"topics":[{"name":"t","partitions":4}],"members":[{"id":"m","topics":["t"]}]}',
      '{"topics":[{"name":"t","partitions":4,"previousPartitions":null,"racks":null}],"members":[{"id":"m","topics":["t"],"generation":null,"owned":null,"rack":null,"instanceId":null}]}',
    );
  });

  it('channels: the plan header and an entry\'s channel and lastChannel', () => {
    for (const args of [['channels', 'validate', '-', '--partitions', '2', '--emit', 'json'], ['channels', 'expand', '-', '--partitions', '4'], ['channels', 'rewidth', '-', '--width', '3']]) {
      same(
        args,
        '{"partitions":2,"channels":[[0],{"partitions":[1]},[]]}',
        '{"format":null,"version":null,"partitions":2,"basePartitions":null,"width":null,"strategy":null,"topic":null,"startIndex":null,"warnings":null,"channels":[[0],{"channel":null,"partitions":[1]},{"channel":2,"lastChannel":null,"partitions":[]}]}',
      );
    }
  });

  it('standby: optional fields at the top and in each client', () => {
    same(
      ['standby', '--input', '-'],
      '{"clients":[{"id":"a","active":["0_0"]},{"id":"b"}],"numStandbys":1}',
      '{"clients":[{"id":"a","active":["0_0"],"tags":null,"capacity":null,"standby":null},{"id":"b","active":null}],"numStandbys":1,"tagKeys":null}',
    );
  });

  it('samza plan: the optional members of a job file', () => {
    const job = JSON.parse(readFileSync(join(ROOT, 'examples/job.json'), 'utf8')) as Record<string, unknown>;
    same(['samza', 'plan', '--job', '-'], JSON.stringify(job), JSON.stringify({ ...job, allowKeyMovement: null, processors: null }));
  });

  it('a required field written as null is missing, and refused as such', () => {
    for (const [args, text] of [
      [['group', '--input', '-'], '{"topics":null,"members":[]}'],
      [['channels', 'validate', '-', '--partitions', '1'], '{"channels":null}'],
      [['standby', '--input', '-'], '{"clients":null}'],
      [['samza', 'plan', '--job', '-'], '{"config":null}'],
    ] as const) {
      const r = cli([...args], text);
      expect(r.status).toBe(2);
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    }
  });
});
