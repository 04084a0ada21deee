// The built binary, as a user runs it: JSON, --explain, --html, errors (exit 2, one line).
import { beforeAll, describe, expect, it } from 'vitest';
import { closeSync, mkdtempSync, openSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { cli, CLI } from '../helpers.js';
import { placeStandbys, explainText } from '../../src/standby/index.js';
import { benchSpec } from '../../bench/standby-whole.js';

const KIP = 'test/standby/data/kip-partial.json';
let dir = '';

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error('build first: npm run build:wasm && npx tsc -p tsconfig.json; node scripts/post-build.mjs');
  dir = mkdtempSync(join(tmpdir(), 'standby-cli-'));
});

describe('assignor standby', () => {
  it('prints the placement as JSON (balanced by default)', () => {
    const r = cli(['standby', '--input', KIP]);
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.mode).toBe('balanced');
    expect(out.tasks[0]).toMatchObject({ task: '0_0', active: 'Node-1', level: 'partial' });
    expect(out.tasks[0].standbys.map((s: { client: string }) => s.client)).toEqual(['Node-5', 'Node-6']);
    expect(out.totals.standbys).toBe(14);
  });

  it('kafka mode and every engine give the same placements as the library', () => {
    const outs = ['reference', 'wasm-scalar', 'wasm-simd'].map((e) => JSON.parse(cli(['standby', '--input', KIP, '--mode', 'kafka', '--engine', e]).stdout));
    expect(outs[0].assignor).toBe('ClientTagAwareStandbyTaskAssignor');
    expect(outs[1].tasks).toEqual(outs[0].tasks);
    expect(outs[2].tasks).toEqual(outs[0].tasks);
  });

  it('reads stdin with --input -', () => {
    const r = cli(['standby', '--input', '-', '--mode', 'kafka'], readFileSync(KIP));
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).mode).toBe('kafka');
  });

  it('--explain prints a readable summary', () => {
    const r = cli(['standby', '--input', KIP, '--explain']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/tag keys in precedence order: zone > cluster/);
    expect(r.stdout).toMatch(/standby {2}Node-3 \[zone=eu-central-1c cluster=K8s_Cluster1\] {2}partial/);
    expect(r.stdout).toMatch(/why: cluster: all 2 values/);
    expect(r.stdout).toMatch(/copies span: zone 3/);
    expect(r.stdout).toMatch(/per tag value:\n {2}zone=eu-central-1a/);
    expect(r.stdout).toMatch(/Node-4 \[.*\] capacity 2: 1 active, \d+ standby, load/);
  });

  it('--html writes a self-contained page (no external URLs)', () => {
    const file = join(dir, 'r.html');
    const r = cli(['standby', '--input', KIP, '--html', file]);
    expect(r.status).toBe(0);
    const html = readFileSync(file, 'utf8');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/(src|href)=["']?https?:/);
    expect(html).toContain('"keys":["zone","cluster"]');
    expect(html).toContain('Node-5');
  });

  it('user strings cannot break out of the embedded data', () => {
    const file = join(dir, 'x.html');
    const spec = { numStandbys: 1, tagKeys: ['zone'], clients: [{ id: '</script><b>x', tags: { zone: '<i>' }, active: ['0_0'] }, { id: 'b', tags: { zone: 'z' } }] };
    const inFile = join(dir, 'x.json');
    writeFileSync(inFile, JSON.stringify(spec));
    expect(cli(['standby', '--input', inFile, '--html', file]).status).toBe(0);
    const html = readFileSync(file, 'utf8');
    expect(html).not.toContain('</script><b>');
    expect(html).toContain('\\u003c/script>');
  });

  it('--no-zero-guard reproduces X04 in kafka mode', () => {
    const spec = { numStandbys: 0, tagKeys: ['zone'], clients: [{ id: 'a', tags: { zone: 'z1' }, active: ['0_0'] }, { id: 'b', tags: { zone: 'z2' } }] };
    const f = join(dir, 'z.json');
    writeFileSync(f, JSON.stringify(spec));
    expect(JSON.parse(cli(['standby', '--input', f, '--mode', 'kafka']).stdout).totals.standbys).toBe(0);
    expect(JSON.parse(cli(['standby', '--input', f, '--mode', 'kafka', '--no-zero-guard']).stdout).totals.standbys).toBe(1);
  });

  it('bad input: one line naming the place, exit 2', () => {
    const spec = { numStandbys: 1, tagKeys: ['zone'], clients: [{ id: 'a', tags: { zone: 'z1' } }, { id: 'b', tags: { zone: 'z2' } }, { id: 'c', tags: { zone: 'z3' } }, { id: 'd', tags: { zone: 'z'.repeat(31) } }] };
    const f = join(dir, 'bad.json');
    writeFileSync(f, JSON.stringify(spec));
    const r = cli(['standby', '--input', f]);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(`assignor: Invalid value ${'z'.repeat(31)} for configuration client.tag.: Tag value exceeds maximum length of 30. (at clients[3].tags.zone)\n`);
  });

  it('the JSON and --explain output are exactly the library report, pretty-printed', () => {
    const spec = JSON.parse(readFileSync(KIP, 'utf8'));
    for (const mode of ['balanced', 'kafka'] as const) {
      const report = placeStandbys(spec, { mode, engine: 'reference' }).report();
      expect(cli(['standby', '--input', KIP, '--mode', mode, '--engine', 'reference']).stdout).toBe(`${JSON.stringify(report, null, 2)}\n`);
      expect(cli(['standby', '--input', KIP, '--mode', mode, '--engine', 'reference', '--explain']).stdout).toBe(explainText(report));
    }
    const empty = join(dir, 'empty.json');
    writeFileSync(empty, '{"clients":[]}');
    expect(cli(['standby', '--input', empty, '--engine', 'reference']).stdout).toBe(`${JSON.stringify(placeStandbys({ clients: [] }, { engine: 'reference' }).report(), null, 2)}\n`);
  });

  it('prints reports longer than the longest string V8 can build (JSON and --explain)', () => {
    // Three clients with 25,000-character ids and 8,000 tasks: every task names three of
    // them, so each output is over 600 MB; built as one string it fails with exit 70.
    const ids = ['a', 'b', 'c'].map((x) => x.repeat(25_000));
    const tasks = Array.from({ length: 8_000 }, (_, i) => `0_${i}`);
    const spec = { numStandbys: 2, clients: [{ id: ids[0], active: tasks }, { id: ids[1] }, { id: ids[2] }] };
    const f = join(dir, 'long-ids.json');
    writeFileSync(f, JSON.stringify(spec));
    for (const extra of [[], ['--explain']]) {
      const r = spawnSync(process.execPath, [CLI, 'standby', '--input', f, ...extra], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
    }
  }, 120_000);

  it('stdout a file (written from the report buffers, several pieces in turn) or a pipe: the same bytes as the library', () => {
    // 3,000 tasks with hostile ids: a report of several 4 MiB pieces; the second spec goes the general way (properties).
    const spec = benchSpec(60, 30_000);
    spec.clients[0]!.id = '__proto__ "é"';
    const general = { ...spec, numStandbys: undefined, properties: { 'num.standby.replicas': '2' } };
    for (const [name, s] of [['plain', spec], ['general', general]] as const) {
      const f = join(dir, `${name}.json`);
      writeFileSync(f, JSON.stringify(s));
      const want = Buffer.concat([...placeStandbys(s).reportJson()]);
      const outFile = join(dir, `${name}.out.json`);
      const fd = openSync(outFile, 'w');
      const r = spawnSync(process.execPath, [CLI, 'standby', '--input', f], { stdio: ['ignore', fd, 'pipe'] });
      closeSync(fd);
      expect(r.status).toBe(0);
      expect(readFileSync(outFile).equals(want)).toBe(true);
      const piped = spawnSync(process.execPath, [CLI, 'standby', '--input', f], { stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 30 });
      expect(piped.status).toBe(0);
      expect(piped.stdout.equals(want)).toBe(true);
    }
  }, 120_000);

  it('bad input: the error line of JSON.parse, then normalizeCluster', () => {
    for (const [text, line] of [
      ['{"clients":[{"id":"a","active":["0_0","0_0"]}]}', 'assignor: task 0_0 is listed twice (at clients[0].active[1])'],
      ['{"clients":[{"id":"a","capacity":0}]}', 'assignor: clients[0].capacity must be an integer in [1, 1048576] (stream threads), got 0 (at clients[0].capacity)'],
      ['{"clients":[{"id":"a"}],"numStandbys":1,"numStandbys":-1}', 'assignor: numStandbys must be an integer >= 0, got -1 (at numStandbys)'],
    ] as const) {
      const f = join(dir, 'bad.json');
      writeFileSync(f, text);
      const r = cli(['standby', '--input', f]);
      expect(r.status).toBe(2);
      expect(r.stderr).toBe(`${line}\n`);
    }
    const f = join(dir, 'truncated.json');
    writeFileSync(f, '{"clients":[{"id":"a","active":["0_');
    expect(cli(['standby', '--input', f]).stderr).toMatch(/^assignor: .*truncated\.json is not valid JSON: /);
  });

  it('usage errors', () => {
    expect(cli(['standby']).stderr).toMatch(/--input is required/);
    expect(cli(['standby', '--input', KIP, '--mode', 'fast']).status).toBe(2);
    expect(cli(['standby', '--input', join(dir, 'missing.json')]).stderr).toMatch(/cannot read/);
    expect(cli(['standby', '--help']).stdout).toMatch(/usage: assignor standby/);
  });
});
