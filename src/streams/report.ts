// What `assignor streams` prints: the assignment per member as JSON, or in words (--explain), and
// the process-level standby page (--html), which is the standby report's (src/standby).
import { htmlReport } from '../standby/html-report.js';
import { explainLines } from '../standby/explain.js';
import { placeStandbys, type StandbyPlacement } from '../standby/place.js';
import { clusterOf } from './cluster.js';
import type { StreamsAssignment, StreamsReport } from './assignment.js';

export function streamsReport(a: StreamsAssignment): StreamsReport {
  return { mode: a.mode, numStandbys: a.group.numStandbys, tagKeys: a.group.tagKeys, totals: a.totals(), members: a.members() };
}

/** The standby placement over processes, also when none was asked for (then it shows the actives alone). */
function processPlacement(a: StreamsAssignment): StandbyPlacement {
  return a.placement ?? placeStandbys({ ...clusterOf(a.group, a.activeOwner, []), numStandbys: 0 }, { mode: 'kafka' });
}

/** Totals, each process and its members, then the standby placement in words. */
export function explainStreams(a: StreamsAssignment): string {
  const t = a.totals();
  const lines = [
    `streams group: ${t.tasks} tasks (${t.statefulTasks} stateful), ${a.group.members.length} members in ${a.group.processes.length} processes, mode ${a.mode}`,
    `actives: ${t.previouslyOwned} had an owner; ${t.keptOnProcess} stay in their process, ${t.keptOnMember} on their member`,
    `standbys: ${t.standbysAskedFor} asked for, ${t.standbys} placed (${t.standbysKept} kept from before), ${t.standbysUnplaced} not placed`,
  ];
  if (t.staleTaskIds > 0) lines.push(`ignored: ${t.staleTaskIds} task ids the topology does not have`);
  const members = a.members();
  for (const p of a.group.processes) {
    lines.push('', `process ${p.id}${[...p.tags].map(([k, v]) => ` ${k}=${v}`).join('')}`);
    for (const m of members.slice(p.firstMember, p.firstMember + p.size)) {
      lines.push(`  member ${m.id}: active [${m.active.join(', ')}], standby [${m.standby.join(', ')}]`);
    }
  }
  if (a.placement !== null) lines.push('', 'standby placement over processes (task ids as the standby engine numbers them):', ...explainLines(a.placement.report()));
  return `${lines.join('\n')}\n`;
}

export function streamsHtml(a: StreamsAssignment): string {
  return htmlReport(processPlacement(a).report(), 'assignor streams report');
}
