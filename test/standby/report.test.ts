// Report, explain text and HTML for the corner shapes: no tag keys, one key, unplaced standbys.
import { describe, expect, it } from 'vitest';
import { placeStandbys, explainText, htmlReport } from '../../src/standby/index.js';

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
});
