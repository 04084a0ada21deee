// Report, explain text and HTML for the corner shapes: no tag keys, one key, unplaced standbys.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { placeStandbys, explainText, htmlReport, type ClusterSpec } from '../../src/standby/index.js';
import { command, itNeeds } from '../support/components.js';

const chromium = command('chromium', 'apt-get install chromium');

/** The page's DOM after its script ran (headless Chromium). */
function renderedDom(html: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'standby-html-')), 'r.html');
  writeFileSync(file, html);
  const r = spawnSync(chromium.path, ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--dump-dom', `file://${file}`], { encoding: 'utf8', timeout: 60_000 });
  return r.stdout;
}

// A tag value that reads "(no tag)" and clients that lack the key must stay apart.
const noTagSpec: ClusterSpec = {
  numStandbys: 1,
  tagKeys: ['zone', 'cluster', 'rack'],
  clients: [
    { id: 'a', tags: { zone: '(no tag)', cluster: '(no tag)', rack: '(no tag)' }, active: ['0_0'] },
    { id: 'b', tags: { cluster: 'c1' } },
    { id: 'c', tags: { zone: 'z1', cluster: 'c1', rack: 'r1' } },
  ],
};

describe('reports', () => {
  it('without tag keys every standby is untagged and the explain text says so', () => {
    const r = placeStandbys({ clients: [{ id: 'a', active: ['0_0'] }, { id: 'b' }, { id: 'c' }], numStandbys: 2 }).report();
    expect(r.tasks[0]!.level).toBe('untagged');
    expect(r.totals.standbyLevels.untagged).toBe(2);
    const text = explainText(r);
    expect(text).toMatch(/\(none: placement by load only\)/);
    expect(text).not.toMatch(/per tag value/);
    expect(htmlReport(r)).toContain('"keys":[]');
  });
  it('one key, a task with no standby possible, client loads', () => {
    const r = placeStandbys({ clients: [{ id: 'a', tags: { zone: 'z1' }, active: ['0_0'], capacity: 2 }], numStandbys: 1, tagKeys: ['zone'] }).report();
    expect(r.tasks[0]).toMatchObject({ level: 'none', unplaced: 1, standbys: [] });
    expect(r.clients[0]!.load).toBe(0.5);
    expect(explainText(r)).toMatch(/level none, 1 not placed/);
    expect(htmlReport(r, 'my <title>')).toContain('<title>my &#60;title&#62;</title>');
  });
  it('explain can stop after n tasks', () => {
    const clients = [{ id: 'a', active: ['0_0', '0_1', '0_2'] }, { id: 'b' }];
    const text = explainText(placeStandbys({ clients, numStandbys: 1 }).report(), 1);
    expect(text).toMatch(/\.\.\. 2 more tasks/);
  });
  it('explain: clients without a key are not merged with a value that reads "(no tag)"', () => {
    const text = explainText(placeStandbys(noTagSpec, { engine: 'reference' }).report());
    expect(text).toContain('  zone=(no tag): 1 client(s), 1 active, 0 standby, load 1\n');
    expect(text).toContain('  no zone tag: 1 client(s), 0 active, 0 standby, load 0\n');
    expect(text).toContain('  no rack tag: 1 client(s)');
    // Per client, too: a missing key is not shown as if it were a value.
    expect(text).toContain('  b [no zone cluster=c1 no rack] capacity 1');
    const dash = explainText(placeStandbys({ tagKeys: ['zone'], clients: [{ id: 'x', tags: { zone: '-' } }, { id: 'y' }] }, { engine: 'reference' }).report());
    expect(dash).toContain('  x [zone=-] capacity 1');
    expect(dash).toContain('  y [no zone] capacity 1');
  });
  itNeeds(chromium)('html grid: a missing key gets its own row, apart from a value "(no tag)"', () => {
    const dom = renderedDom(htmlReport(placeStandbys(noTagSpec, { engine: 'reference' }).report()));
    const table = /<table class="grid">([\s\S]*?)<\/table>/.exec(dom)![1]!;
    // Header row + (no tag) + z1 + the row of clients without a zone.
    expect(table.match(/<tr>/g)!.length).toBe(4);
    expect(table).toContain('<th class="none">(no tag)</th>');
    expect(table).toContain('<div class="sub">no rack tag</div>');
    expect(table).toContain('<div class="sub">rack=(no tag)</div>');
  }, 60_000);
  itNeeds(chromium)('html: ids, tag values and keys full of markup stay text once the page has run', () => {
    const evil = '</script><img src=x onerror=alert(1)>';
    const spec = {
      numStandbys: 1,
      tagKeys: ['<b>k</b>'],
      clients: [
        { id: evil, tags: { '<b>k</b>': '<img src=y>' }, active: ['0_0'] },
        { id: '<svg onload=alert(2)>', tags: { '<b>k</b>': '<!--' } },
      ],
    };
    const dom = renderedDom(htmlReport(placeStandbys(spec, { engine: 'reference' }).report(), '<i>t</i>'));
    expect(dom).toContain('<table class="grid">');
    expect(dom).not.toMatch(/<img|<svg|<b>k|<i>t/);
    expect(dom).toContain('&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;');
  }, 60_000);
});
