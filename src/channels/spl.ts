// SPL a Streams developer can paste: one KafkaConsumer per channel with its
// `partition:` list, and, where one expression serves every channel, the
// @parallel form computing the list from getChannel() (the use-case document's
// 1-to-1 and 2-to-1 forms, generalised to k-to-1 and to round-robin/flink).
import { channelPartitions, type ChannelPlan } from './plan.js';

export interface SplOptions {
  /** Pad short channels to the longest list by repeating their first partition (`4, 4`). */
  fixedArity?: boolean;
  /** propertiesFile parameter of each consumer. */
  propertiesFile?: string;
}

interface Item {
  spl: string;
  at(c: number): number;
}

export function emitSpl(plan: ChannelPlan, options: SplOptions = {}): string {
  const props = options.propertiesFile ?? 'etc/consumer.properties';
  const topic = plan.topic ?? 'myTopic';
  const lines: string[] = [];
  lines.push(`// assignor channels: ${plan.partitions} partitions of ${plan.topic === null ? 'the topic (name it with --topic; "myTopic" below)' : JSON.stringify(plan.topic)}, width ${plan.width}, strategy ${plan.strategy}${plan.basePartitions !== plan.partitions ? `, folded on base ${plan.basePartitions}` : ''}`);
  for (const w of plan.warnings) lines.push(`// warning: ${w}`);

  let arity = 0;
  for (let c = 0; c < plan.width; c++) arity = Math.max(arity, plan.offsets[c + 1]! - plan.offsets[c]!);
  const items = parallelItems(plan);
  if (items !== null) {
    lines.push('// Two alternatives follow: the @parallel form and the manual invocations. Use one, not both.');
    const uniform = plan.partitions % plan.width === 0;
    lines.push('');
    lines.push(`// @parallel form: each channel computes its own ${items.length} partition(s) from getChannel().`);
    if (!uniform) lines.push('// Short channels repeat a partition (e.g. `4, 4`); the operator collapses the repeat.');
    lines.push(`@parallel (width = ${plan.width})`);
    lines.push(...consumer('Messages', props, topic, items.map((i) => i.spl).join(', ')));
  }

  lines.push('');
  lines.push('// Manual invocation: one KafkaConsumer per channel; together they read every partition exactly once.');
  for (let c = 0; c < plan.width; c++) {
    const own = channelPartitions(plan, c);
    if (own.length === 0) {
      lines.push(`// channel ${c}: no partition. Do not invoke a consumer for it: without a partition list it would join a consumer group.`);
      continue;
    }
    const list = Array.from(own);
    if (options.fixedArity) while (list.length < arity) list.push(own[0]!);
    lines.push(...consumer(`Channel${c}`, props, topic, list.join(', ')));
  }
  return `${lines.join('\n')}\n`;
}

function consumer(name: string, props: string, topic: string, partitions: string): string[] {
  return [
    `stream<rstring json> ${name} = KafkaConsumer() {`,
    '    param',
    `        propertiesFile: ${JSON.stringify(props)};`,
    `        topic: ${JSON.stringify(topic)};`,
    `        partition: ${partitions};`,
    '        outputMessageAttributeName: "json";',
    '    config placement: partitionExlocation("A");',
    '}',
  ];
}

/**
 * The getChannel() expressions of the plan's partition list, or null when no
 * single expression reproduces every channel's list (custom plans, idle
 * channels, contiguous blocks that differ by one at more than the last channel).
 * Folded plans repeat the base expressions with + j * base. The result is
 * checked against the plan before it is returned.
 */
export function parallelItems(plan: ChannelPlan): Item[] | null {
  const b = plan.basePartitions;
  const w = plan.width;
  if (w > b || plan.strategy === 'custom') return null;
  const k = Math.ceil(b / w);
  const last = b - 1;
  const base: Item[] = [];
  const ch = 'getChannel()';
  if (plan.strategy === 'contiguous') {
    if (b % w !== 0 && b % w !== w - 1) return null;
    const first = k === 1 ? ch : `${ch} * ${k}`;
    for (let i = 0; i < k; i++) {
      if (i === 0) base.push({ spl: first, at: (c) => c * k });
      else if (b % w === 0) base.push({ spl: `${first} + ${i}`, at: (c) => c * k + i });
      else base.push({ spl: `${first} + ((${first} + ${i}) > ${last} ? 0 : ${i})`, at: (c) => c * k + (c * k + i > last ? 0 : i) });
    }
  } else {
    const s = plan.strategy === 'flink' ? (plan.startIndex ?? 0) : 0;
    const first = s === 0 ? ch : `((${ch} + ${w - s}) % ${w})`;
    const f = (c: number): number => (c + w - s) % w;
    for (let i = 0; i < k; i++) {
      const step = i * w;
      if (i === 0) base.push({ spl: first, at: f });
      else if (b % w === 0 || i < k - 1) base.push({ spl: `${first} + ${step}`, at: (c) => f(c) + step });
      else base.push({ spl: `${first} + ((${first} + ${step}) > ${last} ? 0 : ${step})`, at: (c) => f(c) + (f(c) + step > last ? 0 : step) });
    }
  }
  const items: Item[] = [];
  for (let j = 0; j < plan.partitions / b; j++) {
    for (const it of base) items.push(j === 0 ? it : { spl: `${it.spl} + ${j * b}`, at: (c) => it.at(c) + j * b });
  }
  return matches(plan, items) ? items : null;
}

/** True when, for every channel, the distinct values of the items are exactly its partitions. */
function matches(plan: ChannelPlan, items: Item[]): boolean {
  for (let c = 0; c < plan.width; c++) {
    const own = channelPartitions(plan, c);
    const got = [...new Set(items.map((it) => it.at(c)))].sort((x, y) => x - y);
    if (got.length !== own.length) return false;
    for (let i = 0; i < got.length; i++) if (got[i] !== own[i]) return false;
  }
  return true;
}
