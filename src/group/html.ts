// `assignor group --html`: the assignment as one self-contained page (no script, no network):
// a table of members by topics with counts, the partitions each member holds, those that moved
// to it marked, and rack matches shown.
import type { GroupAssignment } from './assign.js';

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const STYLE = `body{font:14px system-ui,sans-serif;margin:1.5em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 6px;vertical-align:top;text-align:left}
th{background:#f4f4f4}.n{font-weight:600}.p{font:12px ui-monospace,monospace}.moved{background:#ffd7a8}.placed{background:#d7ecff}.rack{text-decoration:underline}
.legend span{padding:0 6px;margin-right:8px}`;

/** One cell: the count, then the partitions (moved ones and rack matches marked). */
function cell(result: GroupAssignment, m: number, topic: string, parts: readonly number[]): string {
  const prev = result.previous.get(topic)!;
  const racks = result.group.topics.get(topic)!.racks;
  const rack = result.group.members[m]!.rack;
  const items = parts.map((p) => {
    const cls = [prev[p]! >= 0 && prev[p] !== m ? 'moved' : prev[p]! < 0 ? 'placed' : '', rack !== null && racks !== null && racks[p]!.includes(rack) ? 'rack' : ''].filter((c) => c !== '');
    return cls.length === 0 ? String(p) : `<span class="${cls.join(' ')}">${p}</span>`;
  });
  return `<td data-topic="${esc(topic)}"><div class="n">${parts.length}</div><div class="p">${items.join(' ')}</div></td>`;
}

/** The page. `title` defaults to the strategy's name. */
export function groupHtml(result: GroupAssignment, title = `assignor group: ${result.protocol === 'consumer' ? 'consumer protocol, ' : ''}${result.strategy}`): string {
  const r = result.report;
  const topics = result.group.assigned;
  const head = `<tr><th>member</th><th>rack</th><th>total</th>${topics.map((t) => `<th>${esc(t)}</th>`).join('')}</tr>`;
  const rows = [...result.assignment].map(([id, mine], m) => {
    let total = 0;
    for (const ps of mine.values()) total += ps.length;
    const cells = topics.map((t) => {
      const subscribed = result.group.members[m]!.topics.includes(t);
      return subscribed ? cell(result, m, t, mine.get(t) ?? []) : '<td class="none">–</td>';
    });
    return `<tr data-member="${esc(id)}"><th>${esc(id)}</th><td>${esc(result.group.members[m]!.rack ?? '')}</td><td class="n">${total}</td>${cells.join('')}</tr>`;
  });
  const summary = `kept ${r.kept}, moved ${r.moved}, placed ${r.placed}; ${r.balance.min} to ${r.balance.max} partitions per member (spread ${r.balance.spread})${r.rackMatched === null ? '' : `; rack matches ${r.rackMatched} of ${r.partitions}`}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title><style>${STYLE}</style></head>
<body><h1>${esc(title)}</h1>
<p id="summary">${r.partitions} partitions, ${r.topics} topics, ${r.members} members. ${summary}.</p>
<p class="legend"><span class="moved">moved here</span><span class="placed">placed (no owner before)</span><span class="rack">on a replica rack</span></p>
<table class="group">${head}${rows.join('')}</table>
</body></html>
`;
}
