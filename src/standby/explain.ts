// A readable summary of a placement: totals per level, then per task where its
// copies sit (values per key, level, why), then per tag value and per client load.
import type { PlacementReport } from './report.js';

function fmt(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(2);
}

export function explainText(r: PlacementReport, maxTasks = Number.POSITIVE_INFINITY): string {
  return `${[...explainLines(r, maxTasks)].join('\n')}\n`;
}

/** Each client's tags by key, read once. */
type TagsOf = Map<string, Map<string, string>>;

/**
 * The same text one line at a time (no trailing newlines), so a caller can
 * write a million-task summary without building one string longer than V8 allows.
 */
export function* explainLines(r: PlacementReport, maxTasks = Number.POSITIVE_INFINITY): Generator<string> {
  const tagsOf: TagsOf = new Map(r.clients.map((c) => [c.id, new Map(Object.entries(c.tags))]));
  const tagText = (id: string): string => {
    const t = tagsOf.get(id)!;
    // A missing key reads "no <key>", which no value can be confused with (a value "-" is data).
    return r.tagKeys.length === 0 ? '' : ` [${r.tagKeys.map((k) => (t.has(k) ? `${k}=${t.get(k)}` : `no ${k}`)).join(' ')}]`;
  };
  yield* summaryLines(r);
  yield '';
  yield 'per task:';
  let shown = 0;
  for (const t of r.tasks) {
    if (shown++ >= maxTasks) {
      yield `  ... ${r.tasks.length - maxTasks} more tasks (see the JSON output)`;
      break;
    }
    yield* taskLines(r, t, tagsOf, tagText);
  }
  if (r.tagKeys.length) {
    yield '';
    yield 'per tag value:';
    for (const k of r.tagKeys) yield* tagValueLines(r, k, tagsOf);
  }
  yield '';
  yield 'per client (ProcessId order):';
  for (const c of r.clients) {
    yield `  ${c.id}${tagText(c.id)} capacity ${c.capacity}: ${c.active.length} active, ${c.standby.length} standby, load ${fmt(c.load)}`;
  }
}

/** The head: mode, keys, totals, the comparison with kafka mode, warnings. */
function* summaryLines(r: PlacementReport): Generator<string> {
  const L = r.totals.standbyLevels;
  const TL = r.totals.taskLevels;
  yield `standby placement: mode ${r.mode} (${r.assignor}, engine ${r.engine}), ${r.numStandbys} standby replica(s) per task`;
  yield `tag keys in precedence order: ${r.tagKeys.length ? r.tagKeys.join(' > ') : '(none: placement by load only)'}`;
  const T = r.totals;
  yield `clients ${r.clients.length}, stateful tasks ${T.tasks}`;
  yield `standbys: ${T.askedFor} asked for, ${T.placed} placed, ${T.existing} already there, ${T.unplaced} not placed`;
  if (r.tagKeys.length) {
    yield `standbys by level (existing ones included): absolute ${L.absolute}, partial ${L.partial}, least ${L.least}`;
    yield `tasks by level (worst standby): absolute ${TL.absolute}, partial ${TL.partial}, least ${TL.least}, none ${TL.none}`;
  }
  const K = r.againstKafka;
  if (K !== undefined) {
    yield `against kafka mode on the same input: tag spread better on ${K.tasks.better} task(s), equal on ${K.tasks.equal}, worse on ${K.tasks.worse}`;
    yield `  standby-count spread (most - fewest per client): balanced ${K.balanced.countSpread}, kafka ${K.kafka.countSpread}`;
    yield `  load spread (most - least load): balanced ${fmt(K.balanced.loadSpread)}, kafka ${fmt(K.kafka.loadSpread)}`;
  }
  for (const w of r.warnings) yield `warning: ${w}`;
}

/** One task: its copies with their tags and levels, then the values they span per key. */
function* taskLines(r: PlacementReport, t: PlacementReport['tasks'][number], tagsOf: TagsOf, tagText: (id: string) => string): Generator<string> {
  yield `  ${t.task}  level ${t.level}${t.unplaced ? `, ${t.unplaced} not placed` : ''}`;
  const holders: string[] = [];
  if (t.active !== null) {
    yield `    active   ${t.active}${tagText(t.active)}`;
    holders.push(t.active);
  } else yield '    active   (none)';
  const levelText = (s: { level: string; differsOn: string[] }): string => `  ${s.level}${s.differsOn.length && s.level !== 'absolute' ? ` (new ${s.differsOn.join(', ')})` : ''}`;
  for (const e of t.existing) {
    yield `    existing ${e.client}${tagText(e.client)}${levelText(e)}`;
    holders.push(e.client);
  }
  for (const s of t.standbys) {
    yield `    standby  ${s.client}${tagText(s.client)}${levelText(s)}`;
    if (s.why) yield `             why: ${s.why}`;
    holders.push(s.client);
  }
  if (r.tagKeys.length) {
    const spread = r.tagKeys.map((k) => {
      const vals = new Set(holders.map((h) => tagsOf.get(h)!.get(k)).filter((v) => v !== undefined));
      return `${k} ${vals.size} (${[...vals].join(', ')})`;
    });
    yield `    copies span: ${spread.join('; ')}`;
  }
}

/** Key k's values: clients, copies and load per value. */
function* tagValueLines(r: PlacementReport, k: string, tagsOf: TagsOf): Generator<string> {
  // Clients without the key form their own entry (undefined), never merged with a real value.
  const by = new Map<string | undefined, { clients: number; active: number; standby: number; cap: number }>();
  for (const c of r.clients) {
    const v = tagsOf.get(c.id)!.get(k);
    const e = by.get(v) ?? { clients: 0, active: 0, standby: 0, cap: 0 };
    e.clients++;
    e.active += c.active.length;
    e.standby += c.standby.length;
    e.cap += c.capacity;
    by.set(v, e);
  }
  const entries = [...by].sort((a, b) => (a[0] === undefined ? 1 : b[0] === undefined ? -1 : a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  for (const [v, e] of entries) {
    yield `  ${v === undefined ? `no ${k} tag` : `${k}=${v}`}: ${e.clients} client(s), ${e.active} active, ${e.standby} standby, load ${fmt((e.active + e.standby) / e.cap)}`;
  }
}
