// The short human summary the CLI prints on stderr: tasks, containers, and
// what moved since the previous model and why.
import type { CycleResult } from './cycle.js';
import type { JobModelPlan } from './plan.js';
import { taskNames } from './grouping.js';

export function summarize(plan: JobModelPlan, cycle?: CycleResult): string {
  const lines: string[] = [];
  const active = plan.containers.ids.length;
  const r = plan.settings.replicationFactor;
  const standby = r > 1 ? ` (+${active * (r - 1)} standby containers, replication factor ${r})` : '';
  lines.push(
    `samza plan (${plan.mapper} mapper, ${plan.settings.grouper}): ${taskNames(plan.grouping).length} tasks in ${active} containers${standby}; maxChangeLogStreamPartitions ${plan.maxChangeLogStreamPartitions}`,
  );
  for (const s of plan.streams) {
    const count = s.previousPartitions !== undefined && s.previousPartitions !== s.partitions ? `${s.previousPartitions} -> ${s.partitions}` : `${s.partitions}`;
    lines.push(`  ${s.name}: ${count} partitions, base ${s.base}, ${s.handling}: ${s.why}`);
  }
  if (plan.containerNote !== undefined) lines.push(`  containers: ${plan.containerNote}`);
  if (cycle !== undefined) {
    const c = cycle.changes;
    const joined = c.sspsNew > 0 && c.tasksAdded.length === 0 && taskNames(cycle.plan.grouping).length > 0 && c.sspsNew < countRows(cycle.plan) ? ' (all joined existing tasks)' : '';
    const parts = [`${c.sspsNew} SSPs new${joined}`, `${c.sspsMoved} moved to another task`, `${c.sspsGone} gone`];
    if (c.tasksAdded.length > 0) parts.push(`tasks added: ${list(c.tasksAdded)}`);
    if (c.tasksRemoved.length > 0) parts.push(`tasks removed: ${list(c.tasksRemoved)}`);
    parts.push(`${c.tasksChangedContainer} tasks changed container`);
    if (c.configChanged.length > 0) parts.push(`config changed: ${list(c.configChanged)}`);
    lines.push(`since the previous model: ${parts.join('; ')}`);
    for (const m of c.movedExamples) lines.push(`  moved ${m}`);
    for (const w of cycle.warnings) lines.push(`warning: ${w}`);
    if (cycle.dryRun) lines.push(cycle.recordsWritten === 0 ? 'store: unchanged (dry run: nothing written)' : `store: dry run: would write ${cycle.recordsWritten} records in one batch (nothing written)`);
    else lines.push(cycle.recordsWritten === 0 ? 'store: unchanged (nothing written)' : `store: ${cycle.recordsWritten} records written in one batch`);
  }
  return `${lines.join('\n')}\n`;
}

function list(names: string[]): string {
  return names.length <= 6 ? names.join(', ') : `${names.slice(0, 6).join(', ')} and ${names.length - 6} more`;
}

function countRows(plan: JobModelPlan): number {
  return plan.grouping.stream.length;
}
