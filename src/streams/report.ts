// What `assignor streams` prints: the assignment per member as JSON, or in words (--explain), and
// the process-level standby page (--html), which is the standby report's (src/standby).
import { htmlReport } from '../standby/html-report.js';
import { explainLines } from '../standby/explain.js';
import { placeStandbys, type StandbyPlacement } from '../standby/place.js';
import { clusterOf, compareSpreads, tagSpreads } from './cluster.js';
import { brokerSticky } from './broker-sticky.js';
import { subtopologyOf } from './input.js';
import type { StreamsAssignment, StreamsReport } from './assignment.js';

export function streamsReport(a: StreamsAssignment): StreamsReport {
  return { mode: a.mode, numStandbys: a.group.numStandbys, tagKeys: a.group.tagKeys, totals: a.totals(), againstBroker: againstBroker(a), members: a.members() };
}

function againstBroker(a: StreamsAssignment): StreamsReport['againstBroker'] {
  const g = a.group;
  if (a.mode === 'broker' || g.tagKeys.length === 0 || g.numStandbys === 0) return null;
  const broker = brokerSticky(g);
  const ours = tagSpreads(g, a.activeOwner, a.standbyTasks);
  const theirs = tagSpreads(g, broker.owner, broker.standbys);
  const out = { better: 0, equal: 0, worse: 0 };
  for (let t = 0; t < g.tasks; t++) {
    if (!subtopologyOf(g, t).stateful) continue;
    const d = compareSpreads(ours[t]!, theirs[t]!);
    if (d === 0) out.equal++;
    else if (d > 0) out.better++;
    else out.worse++;
  }
  return out;
}

/**
 * The standby placement over processes for the page. Without one (no standbys asked for, or broker
 * mode), the standbys the members hold are shown as existing ones of a placement that adds none.
 */
function processPlacement(a: StreamsAssignment): StandbyPlacement {
  if (a.placement !== null) return a.placement;
  const held: number[][] = Array.from({ length: a.group.tasks }, () => []);
  a.standbyTasks.forEach((tasks, m) => tasks.forEach((t) => held[t]!.push(m)));
  return placeStandbys({ ...clusterOf(a.group, a.activeOwner, held), numStandbys: 0 }, { mode: 'kafka' });
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
  const b = againstBroker(a);
  if (b !== null) lines.push(`against the broker's StickyTaskAssignor on this group: tag spread better on ${b.better} stateful tasks, equal on ${b.equal}, worse on ${b.worse}`);
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
