// The placement report as JSON text, written straight from the placement's
// typed arrays: the same bytes as `${JSON.stringify(buildReport(pl, kafka), null, 2)}\n`
// without a report object per task or client, in pieces of about `chunk`
// characters (a million-task report is far longer than the longest string V8
// can build, and holding it whole would cost gigabytes).
import { formatTaskId } from './task-id.js';
import { keysOf, levelOf, lowerLevel, type TaskLevel } from './levels.js';
import type { StandbyPlacement } from './place.js';
import { balancedRange, kafkaTagPhase, whyNot } from './report.js';
import { askedFor, compareWithKafka, existingMasks, totalsOf } from './totals.js';

/** JSON.stringify(value, null, 2) of a small value, re-indented to start at depth `pad`. */
function small(value: unknown, pad: string): string {
  return JSON.stringify(value, null, 2).replace(/\n/g, `\n${pad}`);
}

/** A list of JSON strings as JSON.stringify(list, null, 2) prints it at depth `pad` (items one level deeper). */
function stringList(items: readonly string[], pad: string): string {
  if (items.length === 0) return '[]';
  return `[\n${pad}  ${items.join(`,\n${pad}  `)}\n${pad}]`;
}

/**
 * Own-key order of an object built by Object.fromEntries: array-index keys
 * ("0", "17", below 2^32 - 1) first in ascending order, then the others in
 * insertion order. Tag keys are user strings, so this matters.
 */
function objectKeyOrder(keys: string[]): string[] {
  const isIndex = (k: string): boolean => /^(0|[1-9]\d{0,9})$/.test(k) && Number(k) < 4294967295;
  const index = keys.filter(isIndex).sort((a, b) => Number(a) - Number(b));
  return index.length === 0 ? keys : [...index, ...keys.filter((k) => !isIndex(k))];
}

export function* reportJson(pl: StandbyPlacement, kafka?: StandbyPlacement, chunk = 1 << 20, onTask?: (done: number) => void): Generator<string> {
  const { cluster } = pl;
  const p = pl.flat.problem;
  const K = p.keys;
  const W = pl.width;
  const T = p.tasks;
  const C = p.clients;
  const tagKeys = cluster.tagKeys;
  const ids = cluster.clients.map((c) => c.id);
  const jsonIds = ids.map((id) => JSON.stringify(id));
  const exMasks = existingMasks(pl);
  const range = pl.mode !== 'kafka' && kafka !== undefined ? balancedRange(pl, kafka) : undefined;
  const groupSize = new Int32Array(p.groups);
  for (let c = 0; c < C; c++) groupSize[p.groupOf[c]!]!++;

  // Per key mask: the level, and the "level" + "differsOn" lines of a standby entry (depth 4: fields at 10 spaces).
  const maskLevel: (ReturnType<typeof levelOf>)[] = [];
  const maskLines: string[] = [];
  for (let m = 0; m < 1 << K; m++) {
    maskLevel.push(levelOf(m, K));
    const differs = keysOf(m, tagKeys).map((k) => JSON.stringify(k));
    maskLines.push(`          "level": ${JSON.stringify(maskLevel[m])},\n          "differsOn": ${stringList(differs, '          ')}`);
  }

  let out = '';
  const flush = function* (): Generator<string> {
    if (out.length >= chunk) {
      yield out;
      out = '';
    }
  };

  out += '{\n';
  out += `  "mode": ${JSON.stringify(pl.mode)},\n`;
  out += `  "assignor": ${JSON.stringify(pl.assignor)},\n`;
  out += `  "engine": ${JSON.stringify(pl.engine)},\n`;
  out += `  "numStandbys": ${JSON.stringify(cluster.numStandbys)},\n`;
  out += `  "tagKeys": ${small(tagKeys, '  ')},\n`;
  out += `  "totals": ${small(totalsOf(pl), '  ')},\n`;
  if (kafka !== undefined) out += `  "againstKafka": ${small(compareWithKafka(pl, kafka), '  ')},\n`;

  // Warnings come before the tasks, so the unplaced counts are found in a first pass.
  const placed = new Int32Array(T);
  const unplaced = new Int32Array(T);
  const asked = new Int32Array(T);
  let warnings = pl.orderExact ? 0 : 1;
  for (let t = 0; t < T; t++) {
    let n = 0;
    for (let j = 0; j < W; j++) if (pl.slots[t * W + j]! >= 0) n++;
    placed[t] = n;
    asked[t] = askedFor(pl, t);
    const e = p.holderStart[t + 1]! - p.holderStart[t]!;
    unplaced[t] = Math.max(0, asked[t]! - e - n);
    if (unplaced[t]! > 0) warnings++;
  }
  if (warnings === 0) out += '  "warnings": [],\n';
  else {
    out += '  "warnings": [\n';
    let left = warnings;
    const warn = (text: string): void => {
      out += `    ${JSON.stringify(text)}${--left > 0 ? ',\n' : '\n'}`;
    };
    if (!pl.orderExact) warn('kafka mode: a bucket of the fallback HashMap became a tree; the fallback task order is approximate');
    for (let t = 0; t < T; t++) {
      if (unplaced[t] === 0) continue;
      const e = p.holderStart[t + 1]! - p.holderStart[t]!;
      const had = e > 0 ? `, ${e} already there` : '';
      warn(`task ${formatTaskId(cluster.tasks[t]!)}: ${unplaced[t]} of ${asked[t]} standbys could not be placed (every other client already holds a copy${had})`);
      yield* flush();
    }
    out += '  ],\n';
  }

  // Tasks.
  if (T === 0) out += '  "tasks": [],\n';
  else {
    out += '  "tasks": [\n';
    const holders: number[] = [];
    for (let t = 0; t < T; t++) {
      const task = cluster.tasks[t]!;
      const a = p.active[t]!;
      holders.length = 0;
      if (a >= 0) holders.push(a);
      let level: TaskLevel = K === 0 ? 'untagged' : 'none';
      let first = true;
      out += `    {\n      "task": "${formatTaskId(task)}",\n      "active": ${a >= 0 ? jsonIds[a] : 'null'},\n`;
      const h0 = p.holderStart[t]!, h1 = p.holderStart[t + 1]!;
      if (h0 === h1) out += '      "existing": [],\n';
      else {
        out += '      "existing": [\n';
        for (let h = h0; h < h1; h++) {
          const c = p.holders[h]!;
          holders.push(c);
          const m = exMasks[h]!;
          out += `        {\n          "client": ${jsonIds[c]},\n${maskLines[m]}\n        }${h + 1 < h1 ? ',\n' : '\n'}`;
          level = first ? maskLevel[m]! : lowerLevel(level, maskLevel[m]!);
          first = false;
        }
        out += '      ],\n';
      }
      if (placed[t] === 0) out += '      "standbys": [],\n';
      else {
        out += '      "standbys": [\n';
        let tagPhase = -1; // computed only when a reason needs it
        let left = placed[t]!;
        for (let j = 0; j < W; j++) {
          const c = pl.slots[t * W + j]!;
          if (c < 0) continue;
          const m = pl.masks[t * W + j]!;
          const l = maskLevel[m]!;
          out += `        {\n          "client": ${jsonIds[c]},\n${maskLines[m]}`;
          if (l === 'partial' || l === 'least') {
            if (tagPhase < 0) tagPhase = pl.assignor === 'ClientTagAwareStandbyTaskAssignor' ? kafkaTagPhase(pl, t) : 0;
            out += `,\n          "why": ${JSON.stringify(whyNot(pl, holders, c, m, groupSize, j >= tagPhase, range && { ...range, t, slot: j }))}`;
          }
          out += `\n        }${--left > 0 ? ',\n' : '\n'}`;
          level = first ? l : lowerLevel(level, l);
          first = false;
          holders.push(c);
        }
        out += '      ],\n';
      }
      out += `      "level": "${level}",\n      "askedFor": ${asked[t]},\n      "unplaced": ${unplaced[t]}\n    }${t + 1 < T ? ',\n' : '\n'}`;
      if (out.length >= chunk) {
        onTask?.(t + 1);
        yield out;
        out = '';
      }
    }
    out += '  ],\n';
  }

  // Clients: each one's new standbys, in task order (CSR over the slots).
  const start = new Int32Array(C + 1);
  for (let s = 0; s < pl.slots.length; s++) if (pl.slots[s]! >= 0) start[pl.slots[s]! + 1]!++;
  for (let c = 0; c < C; c++) start[c + 1]! += start[c]!;
  const newTasks = new Int32Array(start[C]!);
  const cursor = start.slice(0, C);
  for (let s = 0; s < pl.slots.length; s++) {
    const c = pl.slots[s]!;
    if (c >= 0) newTasks[cursor[c]!++] = (s / W) | 0;
  }
  if (C === 0) out += '  "clients": []\n';
  else {
    out += '  "clients": [\n';
    const taskList = (names: string[]): string => (names.length === 0 ? '[]' : `[\n        "${names.join('",\n        "')}"\n      ]`);
    for (let c = 0; c < C; c++) {
      const cl = cluster.clients[c]!;
      const tagNames = objectKeyOrder([...cl.tags.keys()]);
      const tags = tagNames.length === 0 ? '{}' : `{\n${tagNames.map((k) => `        ${JSON.stringify(k)}: ${JSON.stringify(cl.tags.get(k))}`).join(',\n')}\n      }`;
      const standby = cl.standby.map(formatTaskId);
      for (let i = start[c]!; i < start[c + 1]!; i++) standby.push(formatTaskId(cluster.tasks[newTasks[i]!]!));
      const load = (cl.active.length + standby.length) / cl.capacity;
      out += `    {\n      "id": ${jsonIds[c]},\n      "tags": ${tags},\n      "capacity": ${cl.capacity},\n      "active": ${taskList(cl.active.map(formatTaskId))},\n      "standby": ${taskList(standby)},\n      "load": ${JSON.stringify(load)}\n    }${c + 1 < C ? ',\n' : '\n'}`;
      yield* flush();
    }
    out += '  ]\n';
  }
  out += '}\n';
  yield out;
}
