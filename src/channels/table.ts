// The `table` output: one row per channel, partitions as compact ranges.
import { channelPartitions, formatRanges, type ChannelPlan } from './plan.js';
import type { ValidationReport } from './validate.js';

const MAX_CELL = 100;

export function planTable(plan: ChannelPlan): string {
  const head = `${plan.topic === null ? 'topic (unnamed)' : `topic ${plan.topic}`}: ${plan.partitions} partitions, width ${plan.width}, strategy ${plan.strategy}` +
    (plan.basePartitions !== plan.partitions ? `, base ${plan.basePartitions}` : '') +
    (plan.startIndex !== undefined ? `, start index ${plan.startIndex}` : '');
  const cw = Math.max('channel'.length, String(plan.width - 1).length);
  let nw = 'count'.length;
  for (let c = 0; c < plan.width; c++) nw = Math.max(nw, String(plan.offsets[c + 1]! - plan.offsets[c]!).length);
  const rows = [head, `${'channel'.padStart(cw)}  ${'count'.padStart(nw)}  partitions`];
  for (let c = 0; c < plan.width; c++) {
    const own = channelPartitions(plan, c);
    rows.push(`${String(c).padStart(cw)}  ${String(own.length).padStart(nw)}  ${own.length === 0 ? '(idle)' : clip(formatRanges(own))}`);
  }
  for (const w of plan.warnings) rows.push(`warning: ${w}`);
  return `${rows.join('\n')}\n`;
}

export function reportTable(r: ValidationReport): string {
  // The summary's first clause is the verdict; the details follow as one line per finding.
  const rows = [`${r.sound ? 'SOUND' : 'UNSOUND'}: ${r.summary.split('; ')[0]}`];
  const hint = /the plan was made for .*$/.exec(r.summary);
  if (r.missing.length > 0) rows.push(`missing      ${clip(formatRanges(r.missing))}`);
  for (const d of r.duplicated.slice(0, 20)) rows.push(`duplicated   partition ${d.partition} on channels ${d.channels.join(', ')}`);
  if (r.duplicated.length > 20) rows.push(`duplicated   ... ${r.duplicated.length - 20} more`);
  for (const o of r.outOfRange.slice(0, 20)) rows.push(`out of range ${o.partition} at channels[${o.channel}].partitions[${o.index}]`);
  if (r.outOfRange.length > 20) rows.push(`out of range ... ${r.outOfRange.length - 20} more`);
  if (r.idleChannels.length > 0) rows.push(`idle         channels ${clip(formatRanges(r.idleChannels))}`);
  for (const p of r.repeated.slice(0, 20)) rows.push(`repeated     partition ${p.partition} ${p.times} times on channel ${p.channel} (harmless)`);
  if (hint !== null) rows.push(`note         ${hint[0]}`);
  return `${rows.join('\n')}\n`;
}

function clip(s: string): string {
  if (s.length <= MAX_CELL) return s;
  const cut = s.lastIndexOf(',', MAX_CELL);
  const shown = s.slice(0, cut > 0 ? cut : MAX_CELL);
  const rest = s.slice(shown.length + 1).split(',').length;
  return `${shown},... (+${rest} more runs)`;
}
