// The broker's streams assignor as an oracle (test/streams/java/StreamsStickyOracle.java): groups
// in its line format, its answers read back. Used by the oracle test and bench/streams.ts.
import type { StreamsGroupSpec } from '../../src/streams/input.js';

export interface KafkaAnswer {
  /** member id -> its tasks, as `<subtopology>_<partition>` */
  active: Map<string, string[]>;
  standby: Map<string, string[]>;
}

/** The oracle's input records for one group (see StreamsStickyOracle.java). */
export function oracleRecords(name: string, g: StreamsGroupSpec): string {
  const enc = encodeURIComponent;
  const lines = [`group ${enc(name)} ${g.numStandbys ?? 0}`];
  for (const s of g.subtopologies) lines.push(`sub ${enc(s.id)} ${s.partitions} ${s.stateful ? 1 : 0}`);
  for (const p of g.processes) {
    for (const m of p.members) {
      lines.push(`member ${enc(m.id)} ${enc(p.id)}`);
      if (m.active?.length) lines.push(`active ${m.active.map(enc).join(' ')}`);
      if (m.standby?.length) lines.push(`standby ${m.standby.map(enc).join(' ')}`);
      for (const [t, o] of Object.entries(m.offsets ?? {})) lines.push(`offset ${enc(t)} ${o}`);
    }
  }
  lines.push('end');
  return `${lines.join('\n')}\n`;
}

export function parseOracle(stdout: string): Map<string, KafkaAnswer> {
  const out = new Map<string, KafkaAnswer>();
  let cur: KafkaAnswer | null = null;
  for (const line of stdout.split('\n')) {
    const [kind, id, ...tasks] = line.split(' ');
    if (kind === 'error') throw new Error(`Kafka's assignor failed: ${line}`);
    if (kind === 'group') out.set(decodeURIComponent(id!), (cur = { active: new Map(), standby: new Map() }));
    else if (kind === 'a') cur!.active.set(id!, tasks);
    else if (kind === 's') cur!.standby.set(id!, tasks);
  }
  return out;
}

