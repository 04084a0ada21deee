// Group members as processes, for the broker tests of whole consumer groups (test/kafkajs/group-e2e
// and test/platformatic/group-mixed): each member is its own process (so that SIGKILL really kills
// it without a LeaveGroup) writing one JSON line per event on stdout, and one log gathers what they
// all report. The member scripts are test/kafkajs/group-consumer.ts and
// test/platformatic/group-consumer.ts: 'join' (generation and assignment after each SyncGroup),
// 'report' (the leader's report), 'planned' (the claims a @platformatic/kafka leader planned from),
// 'msg', 'ready', 'stopped', 'crash'.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { StickyAssignmentReport } from '../../src/group/sticky-options.js';
import { ROOT } from '../helpers.js';
import type { Assignment } from '../group/sticky-oracle.js';

export interface Msg {
  name: string;
  topic: string;
  partition: number;
  offset: number;
  key: string;
  generation: number;
}

export interface Join {
  name: string;
  generation: number;
  assignment: Record<string, number[]>;
}

type Claimed = { generation: number; owned: Record<string, number[]> } | null;

/** One member process: `node --import tsx <script> <brokers> <groupId> <topics> <name>`. */
export class MemberProcess {
  readonly child: ChildProcess;
  exited = false;
  ready: Promise<void>;
  constructor(
    readonly name: string,
    script: string,
    brokers: string,
    groupId: string,
    topics: string[],
    log: GroupLog,
  ) {
    this.child = spawn(process.execPath, ['--import', 'tsx', script, brokers, groupId, topics.join(','), name], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    this.child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    this.child.on('exit', () => (this.exited = true));
    this.ready = new Promise((resolve, reject) => {
      this.child.on('exit', (code, signal) => reject(new Error(`${name} exited (${code ?? signal}) before it was ready: ${stderr}`)));
      createInterface({ input: this.child.stdout! }).on('line', (line) => {
        const e = JSON.parse(line) as { type: string };
        if (e.type === 'ready') resolve();
        log.record(e);
      });
    });
  }
  /** A @platformatic/kafka member sends JoinGroup again. */
  rejoin(): void {
    this.child.stdin!.write('rejoin\n');
  }
  stop(): Promise<void> {
    return new Promise((resolve) => {
      if (this.exited) return resolve();
      this.child.on('exit', () => resolve());
      this.child.stdin!.write('stop\n');
    });
  }
  kill(): Promise<void> {
    return new Promise((resolve) => {
      if (this.exited) return resolve();
      this.child.on('exit', () => resolve());
      this.child.kill('SIGKILL');
    });
  }
}

/** The owner of every partition, the newest generation winning, then the first in `order`. */
function newestOwners(order: Iterable<{ name: string; generation: number; owned: Record<string, number[]> }>, members: readonly string[]): Assignment {
  const owner = new Map<string, { name: string; gen: number }>();
  for (const { name, generation, owned } of order) {
    for (const [t, ps] of Object.entries(owned)) {
      for (const p of ps) {
        const k = `${t}\u0000${p}`;
        if ((owner.get(k)?.gen ?? -1) < generation) owner.set(k, { name, gen: generation });
      }
    }
  }
  const out: Assignment = new Map(members.map((m) => [m, new Map<string, number[]>()]));
  for (const [k, { name }] of owner) {
    const [t, p] = k.split('\u0000') as [string, string];
    const ts = out.get(name)!;
    ts.set(t, [...(ts.get(t) ?? []), Number(p)]);
  }
  return out;
}

/** Everything the members reported. */
export class GroupLog {
  joins: Join[] = [];
  reports = new Map<number, StickyAssignmentReport & { leader: string }>();
  messages: Msg[] = [];
  crashes: string[] = [];
  /** Per generation a @platformatic/kafka leader planned: the claims it planned from, by member name. */
  planned = new Map<number, Record<string, Claimed>>();
  record(e: { type: string } & Record<string, unknown>): void {
    if (process.env.ASSIGNOR_GROUP_LOG === '2' && e.type !== 'msg') console.log(`${new Date().toISOString().slice(11, 23)} ${JSON.stringify(e)}`);
    if (e.type === 'join') this.joins.push(e as unknown as Join);
    else if (e.type === 'report') {
      const r = e.report as StickyAssignmentReport;
      if (r.generation !== null) this.reports.set(r.generation, { ...r, leader: String(e.name) });
    } else if (e.type === 'msg') this.messages.push(e as unknown as Msg);
    else if (e.type === 'crash') this.crashes.push(`${String(e.name)}: ${String(e.error)}`);
    else if (e.type === 'planned') this.planned.set(Number(e.generation), e.claims as Record<string, Claimed>);
  }
  /** Generations whose every member reported its assignment, oldest first. */
  complete(): { generation: number; members: string[]; assignment: Assignment }[] {
    const out: { generation: number; members: string[]; assignment: Assignment }[] = [];
    for (const [g, report] of [...this.reports].sort(([a], [b]) => a - b)) {
      // One join per member: a @platformatic/kafka member whose rejoins overlapped (its heartbeat's
      // and a failed commit's) completes the same SyncGroup twice and reports it twice.
      const joins = [...new Map(this.joins.filter((j) => j.generation === g).map((j) => [j.name, j])).values()];
      if (joins.length !== report.members) continue;
      const assignment: Assignment = new Map(joins.map((j) => [j.name, new Map(Object.entries(j.assignment))]));
      out.push({ generation: g, members: joins.map((j) => j.name).sort(), assignment });
    }
    return out;
  }
  /** What each of `members` held before generation g (its latest assignment), the newest generation winning a partition. */
  before(g: number, members: string[]): Assignment {
    const latest = new Map<string, Join>();
    for (const j of this.joins) if (j.generation < g && members.includes(j.name) && (latest.get(j.name)?.generation ?? -1) < j.generation) latest.set(j.name, j);
    return newestOwners([...latest.values()].map((j) => ({ name: j.name, generation: j.generation, owned: j.assignment })), members);
  }
  /**
   * What the leader of generation g planned from: each member's claims, the newest generation
   * winning a partition, then the member first by id (as the planner resolves them). Null when
   * no @platformatic/kafka leader reported them. These can differ from what the members held
   * (before()): @platformatic/kafka 2.12.1 may send a JoinGroup whose claims were written before
   * the member's previous SyncGroup completed, and a plan can only keep what it was told.
   */
  claimed(g: number, members: string[]): Assignment | null {
    const claims = this.planned.get(g);
    if (claims === undefined) return null;
    const order = [...members].sort().flatMap((name) => {
      const c = claims[name];
      return c == null || c.generation < 0 ? [] : [{ name, generation: c.generation, owned: c.owned }];
    });
    return newestOwners(order, members);
  }
}

/** An assignment as one comparable string: members and topics sorted, partitions ascending, empty topics left out. */
export function snapshot(a: Assignment): string {
  const topicsOf = (ts: Map<string, number[]>) => [...ts].filter(([, ps]) => ps.length > 0).sort(([x], [y]) => (x < y ? -1 : 1)).map(([t, ps]) => [t, [...ps].sort((x, y) => x - y)]);
  return JSON.stringify([...a].sort(([x], [y]) => (x < y ? -1 : 1)).map(([m, ts]) => [m, topicsOf(ts)]));
}

/** Polls `probe` every 200 ms until it returns a value; fails after `timeoutMs`, naming `what`. */
export async function until<T>(what: string, timeoutMs: number, probe: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
