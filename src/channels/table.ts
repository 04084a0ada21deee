// The `table` output: one row per channel, partitions as compact ranges. Rows
// come in pieces, so a plan of 67 million channels or partitions streams in
// bounded memory; consecutive idle channels share one row.
import { CHUNK } from './json.js';
import { channelPartitions, type ChannelPlan } from './plan.js';
import { clipRuns, idsOf } from './ranges.js';
import { placeOf, runsSource, type Findings } from './validate.js';

const MAX_CELL = 100;

export function* planTableChunks(plan: ChannelPlan): Generator<string> {
  const head =
    `${plan.topic === null ? 'topic (unnamed)' : `topic ${plan.topic}`}: ${plan.partitions} partitions, width ${plan.width}, strategy ${plan.strategy}` +
    (plan.basePartitions !== plan.partitions ? `, base ${plan.basePartitions}` : '') +
    (plan.startIndex !== undefined ? `, start index ${plan.startIndex}` : '');
  const cw = Math.max('channel'.length, String(plan.width - 1).length);
  let most = 0;
  for (let c = 0; c < plan.width; c++) most = Math.max(most, plan.offsets[c + 1]! - plan.offsets[c]!);
  const nw = Math.max('count'.length, String(most).length);
  let buf = `${head}\n${'channel'.padStart(cw)}  ${'count'.padStart(nw)}  partitions\n`;
  const { offsets, members } = plan;
  for (let c = 0; c < plan.width; c++) {
    const size = offsets[c + 1]! - offsets[c]!;
    if (size === 1) {
      // The common row of wide plans (67 million channels of one partition): no list object, no range scan.
      buf += `${String(c).padStart(cw)}  ${'1'.padStart(nw)}  ${members[offsets[c]!]}\n`;
    } else if (size === 0) {
      let last = c;
      while (last + 1 < plan.width && plan.offsets[last + 1] === plan.offsets[last + 2]) last++;
      buf += `${(last === c ? String(c) : `${c}-${last}`).padStart(cw)}  ${'0'.padStart(nw)}  (idle)\n`;
      c = last;
    } else {
      buf += `${String(c).padStart(cw)}  ${String(size).padStart(nw)}  ${clipRuns(idsOf(channelPartitions(plan, c)), MAX_CELL)}\n`;
    }
    if (buf.length >= CHUNK) {
      yield buf;
      buf = '';
    }
  }
  for (const w of plan.warnings) buf += `warning: ${w}\n`;
  yield buf;
}

export function reportTableOf(r: Findings): string {
  // The summary's first clause is the verdict; the details follow as one line per finding.
  const rows = [`${r.sound ? 'SOUND' : 'UNSOUND'}: ${r.summary.split('; ')[0]}`];
  const hint = /the plan was made for .*$/.exec(r.summary);
  if (r.missingCount > 0) rows.push(`missing      ${clipRuns(r.missing, MAX_CELL)}`);
  for (const d of r.duplicated.slice(0, 20)) rows.push(`duplicated   partition ${d.partition} on channels ${d.channels.join(', ')}`);
  if (r.duplicated.length > 20) rows.push(`duplicated   ... ${r.duplicated.length - 20} more`);
  for (const o of r.outOfRange.slice(0, 20)) rows.push(`out of range ${placeOf(o, r.entryOf)}`);
  if (r.outOfRange.length > 20) rows.push(`out of range ... ${r.outOfRange.length - 20} more`);
  if (r.idleCount > 0) rows.push(`idle         channels ${clipRuns(runsSource(r.idleRuns), MAX_CELL)}`);
  for (const p of r.repeated.slice(0, 20)) rows.push(`repeated     partition ${p.partition} ${p.times} times on channel ${p.channel} (harmless)`);
  if (hint !== null) rows.push(`note         ${hint[0]}`);
  return `${rows.join('\n')}\n`;
}
