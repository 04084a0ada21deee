// An independent judge of a rebalance: one owner per partition, balance as docs/kafkajs.md defines
// it, and the fewest moves any balanced assignment could make from the previous one.
//
// The minimum: a balanced assignment gives member m of topic t a quota n = f or f + 1
// (f = floor(partitions / subscribers)); m keeps at most min(held, n) of what it held, so at least
// sum(max(0, held - f)) minus (extras given to members holding more than f) items move. Per topic
// that is a plain count; where totals must balance too (a class of identical subscriptions that
// nobody else shares a topic with), the extras are a transportation problem, solved here by
// successive shortest paths (SPFA, one unit per path) on an explicit edge list. That this bound is
// exact was checked against exhaustive search (group-kernel.test.ts).
export type Assignment = Map<string, Map<string, number[]>>;

export interface MemberView {
  name: string;
  topics: readonly string[];
}

/** A topic that grew from `from` to k * from and must be folded: partition p stays with the owner of p mod from. */
export interface Fold {
  from: number;
  k: number;
}

export interface Verdict {
  violations: string[];
  moved: number;
  minimum: number;
}

/** Textbook min-cost flow: edge arrays, SPFA shortest paths, one unit per augmentation. */
class MinCostFlow {
  to: number[] = [];
  cap: number[] = [];
  cost: number[] = [];
  head: number[];
  next: number[] = [];
  constructor(readonly n: number) {
    this.head = new Array<number>(n).fill(-1);
  }
  edge(u: number, v: number, cap: number, cost: number): void {
    for (const [a, b, c, w] of [
      [u, v, cap, cost],
      [v, u, 0, -cost],
    ] as const) {
      this.to.push(b);
      this.cap.push(c);
      this.cost.push(w);
      this.next.push(this.head[a]!);
      this.head[a] = this.to.length - 1;
    }
  }
  /** Sends `amount` units from s to t at least cost; returns the cost (throws if impossible). */
  run(s: number, t: number, amount: number): number {
    let total = 0;
    for (let unit = 0; unit < amount; unit++) {
      const dist = new Array<number>(this.n).fill(Infinity);
      const via = new Array<number>(this.n).fill(-1);
      const inQueue = new Array<boolean>(this.n).fill(false);
      dist[s] = 0;
      const queue = [s];
      inQueue[s] = true;
      while (queue.length > 0) {
        const u = queue.shift()!;
        inQueue[u] = false;
        for (let e = this.head[u]!; e >= 0; e = this.next[e]!) {
          if (this.cap[e]! > 0 && dist[u]! + this.cost[e]! < dist[this.to[e]!]!) {
            dist[this.to[e]!] = dist[u]! + this.cost[e]!;
            via[this.to[e]!] = e;
            if (!inQueue[this.to[e]!]) {
              inQueue[this.to[e]!] = true;
              queue.push(this.to[e]!);
            }
          }
        }
      }
      if (dist[t] === Infinity) throw new Error('oracle: infeasible extras');
      for (let v = t; v !== s; v = this.to[via[v]! ^ 1]!) {
        this.cap[via[v]!]!--;
        this.cap[via[v]! ^ 1]!++;
      }
      total += dist[t]!;
    }
    return total;
  }
}

/**
 * Judges `next` given the previous generation's assignment (`prev`, by member name), the members
 * now in the group, the partition counts, and the topics expected to fold (grown to a multiple with
 * every old partition's owner still here, within the skew bound): each of their partitions must
 * stay with the previous owner of its parent (p mod from); they sit out of balance and totals.
 */
export function judge(prev: Assignment | null, members: readonly MemberView[], counts: ReadonlyMap<string, number>, next: Assignment, folds: ReadonlyMap<string, Fold> = new Map()): Verdict {
  const violations: string[] = [];
  const names = members.map((m) => m.name);
  const subscribers = new Map<string, string[]>();
  for (const m of members) for (const t of new Set(m.topics)) if ((counts.get(t) ?? 0) > 0) subscribers.set(t, [...(subscribers.get(t) ?? []), m.name]);
  for (const s of subscribers.values()) s.sort();

  // One owner per partition; owners subscribe; nothing else assigned.
  const ownerNext = new Map<string, (string | null)[]>();
  for (const [t, c] of counts) ownerNext.set(t, new Array<string | null>(c).fill(null));
  for (const [name, topics] of next) {
    if (!names.includes(name)) violations.push(`${name} is not a member but got partitions`);
    for (const [t, ps] of topics) {
      if (!(subscribers.get(t) ?? []).includes(name)) violations.push(`${name} got ${t} without subscribing it`);
      for (const p of ps) {
        const row = ownerNext.get(t);
        if (row === undefined || p < 0 || p >= row.length) violations.push(`${name} got ${t}-${p}, which does not exist`);
        else if (row[p] !== null) violations.push(`${t}-${p} has two owners: ${row[p]} and ${name}`);
        else row[p] = name;
      }
    }
  }
  for (const [t] of subscribers) ownerNext.get(t)!.forEach((o, p) => o === null && violations.push(`${t}-${p} has no owner`));

  // Previous owners still here and still subscribed.
  const ownerPrev = new Map<string, (string | null)[]>();
  for (const [t, c] of counts) ownerPrev.set(t, new Array<string | null>(c).fill(null));
  if (prev !== null) {
    for (const [name, topics] of prev) {
      for (const [t, ps] of topics) {
        if (!(subscribers.get(t) ?? []).includes(name)) continue;
        for (const p of ps) if (p < (counts.get(t) ?? 0)) ownerPrev.get(t)![p] = name;
      }
    }
  }
  let moved = 0;
  for (const [t, row] of ownerPrev) row.forEach((o, p) => o !== null && ownerNext.get(t)![p] !== null && ownerNext.get(t)![p] !== o && moved++);

  const heldItems = (t: string, name: string): number => {
    const row = ownerPrev.get(t)!;
    let h = 0;
    for (let j = 0; j < row.length; j++) if (row[j] === name) h++;
    return h;
  };
  const countNext = (t: string, name: string): number => (next.get(name)?.get(t) ?? []).length;

  // A folded topic: every partition with the previous owner of its parent. Other topics: balanced.
  for (const [t, f] of folds) {
    const row = ownerNext.get(t)!;
    const parents = ownerPrev.get(t)!;
    for (let p = 0; p < row.length; p++) if (row[p] !== parents[p % f.from]) violations.push(`${t}-${p} is with ${row[p]}, not with ${parents[p % f.from]}, the owner of ${t}-${p % f.from}`);
  }
  for (const [t, subs] of subscribers) {
    if (folds.has(t)) continue;
    const n = counts.get(t)!;
    const f = Math.floor(n / subs.length);
    for (const m of subs) {
      const c = countNext(t, m);
      if (c !== f && c !== f + 1) violations.push(`${t}: ${m} holds ${c} partitions; balance allows ${f} or ${f + 1}`);
    }
  }
  // Balanced classes: identical subscriptions that nobody else shares a topic with.
  // Folded topics sit out of the totals of the rebalance that folds them.
  const signature = new Map(members.map((m) => [m.name, [...new Set(m.topics.filter((t) => subscribers.has(t) && !folds.has(t)))].sort().join('\u0000')]));
  const classes = new Map<string, string[]>();
  for (const m of members) classes.set(signature.get(m.name)!, [...(classes.get(signature.get(m.name)!) ?? []), m.name]);
  const balancedClasses: { topics: string[]; members: string[] }[] = [];
  for (const [sig, ms] of classes) {
    if (sig === '') continue;
    const topics = sig.split('\u0000');
    if (topics.every((t) => subscribers.get(t)!.every((s) => signature.get(s) === sig))) balancedClasses.push({ topics, members: ms.sort() });
  }
  const inClass = new Set(balancedClasses.flatMap((c) => c.topics));
  for (const c of balancedClasses) {
    const totals = c.members.map((m) => c.topics.reduce((a, t) => a + countNext(t, m), 0));
    if (Math.max(...totals) - Math.min(...totals) > 1) violations.push(`totals of ${c.members.join(',')} over ${c.topics.join(',')}: ${totals.join(' ')}`);
  }

  // The minimum.
  let minimum = 0;
  for (const [t, subs] of subscribers) {
    if (folds.has(t)) continue; // nothing of it has to move
    const f = Math.floor(counts.get(t)! / subs.length);
    for (const m of subs) minimum += Math.max(0, heldItems(t, m) - f);
    if (inClass.has(t)) continue;
    const r = counts.get(t)! % subs.length;
    const useful = subs.filter((m) => heldItems(t, m) > f).length;
    minimum -= Math.min(r, useful);
  }
  for (const c of balancedClasses) {
    const S = c.members.length;
    const T = c.topics.length;
    const rem = c.topics.map((t) => counts.get(t)! % S);
    const X = rem.reduce((a, b) => a + b, 0);
    if (X === 0) continue;
    // Nodes: 0 source, 1..T topics, T+1..T+S members, T+S+1 bonus, T+S+2 sink.
    const g = new MinCostFlow(T + S + 3);
    const bonus = T + S + 1;
    const sink = T + S + 2;
    c.topics.forEach((t, i) => {
      g.edge(0, 1 + i, rem[i]!, 0);
      const f = Math.floor(counts.get(t)! / S);
      c.members.forEach((m, j) => g.edge(1 + i, 1 + T + j, 1, heldItems(t, m) > f ? -1 : 0));
    });
    for (let j = 0; j < S; j++) {
      g.edge(1 + T + j, sink, Math.floor(X / S), 0);
      g.edge(1 + T + j, bonus, 1, 0);
    }
    g.edge(bonus, sink, X % S, 0);
    minimum += g.run(0, sink, X);
  }
  return { violations, moved, minimum };
}
