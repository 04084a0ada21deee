// Existing standbys (the clients' `standby` lists) are copies like any other: they count toward
// the task's level and the totals, the explain text and the HTML page show them, and the totals
// always add up: placed + existing + unplaced = asked for (issue 13, defect 3).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { placeStandbys, explainText, htmlReport, type ClusterSpec, type PlacementReport } from '../../src/standby/index.js';
import { arbCluster } from './generators.js';

const ENGINES = ['reference', 'wasm-scalar', 'wasm-simd'] as const;
const MODES = ['kafka', 'balanced'] as const;

/** The reproducer: the KIP's 2 clusters x 3 zones, with task 0_5's two standbys already on Node-2 and Node-5. */
function kipWithExisting(): ClusterSpec {
  const spec = JSON.parse(readFileSync('test/standby/data/kip-partial.json', 'utf8')) as ClusterSpec;
  for (const c of spec.clients) if (c.id === 'Node-2' || c.id === 'Node-5') c.standby = ['0_5'];
  return spec;
}

function task(r: PlacementReport, id: string) {
  return r.tasks.find((t) => t.task === id)!;
}

function addsUp(r: PlacementReport): void {
  const T = r.totals;
  let asked = 0;
  let placed = 0;
  let existing = 0;
  let unplaced = 0;
  for (const t of r.tasks) {
    expect(t.standbys.length + t.existing.length + t.unplaced).toBe(t.askedFor);
    asked += t.askedFor;
    placed += t.standbys.length;
    existing += t.existing.length;
    unplaced += t.unplaced;
  }
  expect(T.placed + T.existing + T.unplaced).toBe(T.askedFor);
  expect([T.askedFor, T.placed, T.existing, T.unplaced]).toEqual([asked, placed, existing, unplaced]);
  expect(T.standbys).toBe(T.placed + T.existing);
  const L = T.standbyLevels;
  expect(L.absolute + L.partial + L.least + L.untagged).toBe(T.standbys);
  const TL = T.taskLevels;
  expect(TL.absolute + TL.partial + TL.least + TL.untagged + TL.none).toBe(T.tasks);
}

describe('existing standbys are in the report', () => {
  it.each(ENGINES)('balanced (%s): the KIP cluster with 0_5 already on Node-2 and Node-5', (engine) => {
    const r = placeStandbys(kipWithExisting(), { engine }).report();
    const t = task(r, '0_5');
    expect(t.active).toBeNull();
    expect(t.standbys).toEqual([]);
    expect(t.unplaced).toBe(0);
    // Node-2 (1b, cluster 1) first in ProcessId order, then Node-5 (1b, cluster 2): a new cluster, the same zone.
    expect(t.existing).toEqual([
      { client: 'Node-2', level: 'absolute', differsOn: ['zone', 'cluster'] },
      { client: 'Node-5', level: 'partial', differsOn: ['cluster'] },
    ]);
    expect(t.level).toBe('partial');
    expect(t.askedFor).toBe(2);
    // The file's 7 tasks x 2 new standbys, and 0_5's two existing copies.
    expect(r.totals).toMatchObject({ tasks: 8, askedFor: 16, placed: 14, existing: 2, unplaced: 0, standbys: 16 });
    expect(r.totals.taskLevels.none).toBe(0);
    addsUp(r);
  });

  it.each(ENGINES)('kafka (%s): Kafka places numStandbys new copies on top of the existing ones', (engine) => {
    const r = placeStandbys(kipWithExisting(), { mode: 'kafka', engine }).report();
    const t = task(r, '0_5');
    expect(t.existing.map((e) => e.client)).toEqual(['Node-2', 'Node-5']);
    expect(t.standbys.length + t.unplaced).toBe(2);
    expect(t.askedFor).toBe(4);
    expect(r.totals.existing).toBe(2);
    addsUp(r);
  });

  it('a task whose only copies are existing ones takes their level, not "none"', () => {
    const spec: ClusterSpec = {
      numStandbys: 1,
      tagKeys: ['zone'],
      clients: [
        { id: 'a', tags: { zone: 'z1' }, active: ['0_0'] },
        { id: 'b', tags: { zone: 'z1' }, standby: ['0_0'] },
        { id: 'c', tags: { zone: 'z2' } },
      ],
    };
    const r = placeStandbys(spec).report();
    expect(r.tasks[0]).toMatchObject({ level: 'least', standbys: [], unplaced: 0, askedFor: 1 });
    expect(r.tasks[0]!.existing).toEqual([{ client: 'b', level: 'least', differsOn: [] }]);
    expect(r.totals.standbyLevels.least).toBe(1);
    expect(r.totals.taskLevels).toMatchObject({ least: 1, none: 0 });
  });

  it('more existing copies than numStandbys: all are kept and counted, nothing is asked beyond them', () => {
    const spec: ClusterSpec = {
      numStandbys: 1,
      clients: [{ id: 'a', active: ['0_0'] }, { id: 'b', standby: ['0_0'] }, { id: 'c', standby: ['0_0'] }],
    };
    const r = placeStandbys(spec).report();
    expect(r.tasks[0]).toMatchObject({ level: 'untagged', askedFor: 2, unplaced: 0, standbys: [] });
    expect(r.totals).toMatchObject({ askedFor: 2, placed: 0, existing: 2, standbys: 2 });
    addsUp(r);
  });

  it('explain shows each existing copy with its level and counts it in the totals', () => {
    const text = explainText(placeStandbys(kipWithExisting()).report());
    expect(text).toContain('standbys: 16 asked for, 14 placed, 2 already there, 0 not placed');
    expect(text).toMatch(/ {2}0_5 {2}level partial\n {4}active {3}\(none\)\n {4}existing Node-2 \[zone=eu-central-1b cluster=K8s_Cluster1\] {2}absolute\n {4}existing Node-5 \[zone=eu-central-1b cluster=K8s_Cluster2\] {2}partial \(new cluster\)\n/);
  });

  it('the HTML page carries each existing copy with its level, and the totals', () => {
    const html = htmlReport(placeStandbys(kipWithExisting()).report());
    const data = JSON.parse(/<script id="data" type="application\/json">(.*?)<\/script>/s.exec(html)![1]!);
    const t = data.tasks.find((x: { id: string }) => x.id === '0_5');
    const index = (id: string) => data.clients.findIndex((c: { id: string }) => c.id === id);
    expect(t.e).toEqual([[index('Node-2'), 'absolute'], [index('Node-5'), 'partial']]);
    expect(t.l).toBe('partial');
    expect(data.totals).toMatchObject({ existing: 2, placed: 14, askedFor: 16 });
    expect(html).toContain("already there");
  });

  it.each(MODES)('%s: the totals add up on random clusters with existing standbys (every engine)', (mode) => {
    fc.assert(
      fc.property(arbCluster({ missingKeys: true, existing: true }), (spec) => {
        const reports = ENGINES.map((engine) => placeStandbys(spec, { mode, engine }).report());
        addsUp(reports[0]!);
        expect(reports[1]!.tasks).toEqual(reports[0]!.tasks);
        expect(reports[2]!.totals).toEqual(reports[0]!.totals);
      }),
      { numRuns: 100 },
    );
  });

  it('kafka without the zero guard (X04): the do-while copy is asked for, so the totals still add up', () => {
    fc.assert(
      fc.property(arbCluster({ missingKeys: true, existing: true }), (spec) => {
        addsUp(placeStandbys({ ...spec, numStandbys: 0 }, { mode: 'kafka', zeroStandbyGuard: false }).report());
      }),
      { numRuns: 50 },
    );
  });
});
