// Input a careful or hostile caller may send: JSON nested 10,000 levels deep anywhere in the
// cluster (issue 13, defect 1) ends in exit 2 and one line naming the path, never a stack
// overflow; and the public input type is precise, so a misspelt cluster does not compile while
// JS callers still get the runtime check (issue 8, item 6).
import { beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { placeStandbys } from '../../src/standby/index.js';
import { AssignorError } from '../../src/errors.js';
import { caught, cli, CLI } from '../helpers.js';

const DEEP = 10_000;
const deepArray = (n = DEEP): string => `${'['.repeat(n)}${']'.repeat(n)}`;
const deepObject = (n = DEEP): string => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;

/** [where the deep value sits, the JSON, the path the error must name]. */
const CASES: [string, string, string][] = [
  ['the whole file', deepArray(), '$'],
  ['a client', `{"clients":${deepArray()}}`, 'clients[0]'],
  ['a client id', `{"clients":[{"id":${deepArray()}}]}`, 'clients[0].id'],
  ['a tag value', `{"tagKeys":["zone"],"clients":[{"id":"a","tags":{"zone":${deepArray()}}}]}`, 'clients[0].tags.zone'],
  ['an active task', `{"clients":[{"id":"a","active":[${deepArray()}]}]}`, 'clients[0].active[0]'],
  ['an existing standby', `{"clients":[{"id":"a","standby":[${deepObject()}]}]}`, 'clients[0].standby[0]'],
  ['the task list', `{"tasks":[${deepArray()}],"clients":[]}`, 'tasks[0]'],
  ['a tag key', `{"tagKeys":[${deepArray()}],"clients":[]}`, 'tagKeys[0]'],
  ['numStandbys', `{"numStandbys":${deepObject()},"clients":[]}`, 'numStandbys'],
  ['a capacity', `{"clients":[{"id":"a","capacity":${deepArray()}}]}`, 'clients[0].capacity'],
  ['a shared property', `{"properties":{"num.standby.replicas":${deepObject()}},"clients":[]}`, 'properties["num.standby.replicas"]'],
  ['a client property', `{"tagKeys":["zone"],"clients":[{"id":"a","properties":{"client.tag.zone":${deepArray()}}}]}`, 'clients[0].properties'],
  ['rack.aware.assignment.tags', `{"properties":{"rack.aware.assignment.tags":[${deepArray()}]},"clients":[]}`, 'properties["rack.aware.assignment.tags"][0]'],
];

describe('deeply nested input', () => {
  it.each(CASES)('in %s: an AssignorError naming the path', (_, json, path) => {
    const e = caught(() => placeStandbys(JSON.parse(json)));
    expect(e.path).toBe(path);
    expect(e.message.length).toBeLessThan(300);
  });

  describe('through the CLI', () => {
    let dir = '';
    beforeAll(() => {
      if (!existsSync(CLI)) throw new Error('build first: npm run build');
      dir = mkdtempSync(join(tmpdir(), 'standby-deep-'));
    });
    it.each(CASES)('in %s: exit 2, one line on stderr that names the path', (_, json, path) => {
      const file = join(dir, 'deep.json');
      writeFileSync(file, json);
      const r = cli(['standby', '--input', file]);
      expect(r.status).toBe(2);
      expect(r.stdout).toBe('');
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^assignor: /);
      expect(lines[0]).toContain(path === '$' ? 'the input must be an object' : path);
      expect(lines[0]).not.toMatch(/internal error|Maximum call stack/);
    });
  });
});

describe('the input type', () => {
  it('a misspelt cluster does not compile, and is refused at run time', () => {
    // @ts-expect-error `clients` is required and `clientz` is not a field
    const e = caught(() => placeStandbys({ clientz: 5 }));
    expect(e).toBeInstanceOf(AssignorError);
    expect(e.path).toBe('clientz');
  });
  it('nor does a client of the wrong shape', () => {
    // @ts-expect-error capacity is a number
    expect(caught(() => placeStandbys({ clients: [{ id: 'a', capacity: '2' }] })).path).toBe('clients[0].capacity');
    // @ts-expect-error tags map to strings
    expect(caught(() => placeStandbys({ clients: [{ id: 'a', tags: { zone: 1 } }], tagKeys: ['zone'] })).path).toBe('clients[0].tags.zone');
  });
});
