// Reading a coordinator-stream topic raw for the broker tests: every record (read_committed, or
// read_uncommitted to also see what aborted transactions left), and the committed records cut into
// the transactions that wrote them.
import type { Kafka } from 'kafkajs';
import { replayTopic, type RawRecord } from '../../src/store/kafka-replay.js';
import { ReplayedState } from '../../src/store/replayed-state.js';
import { sharedKafka } from '../kafka/shared-broker.js';

export interface Raw {
  offset: number;
  key: string;
  value: string | null;
  /** The envelope timestamp (undefined for tombstones). */
  timestamp: number | undefined;
}

export async function readRaw(topic: string, options: { readUncommitted?: boolean; kafka?: Kafka } = {}): Promise<Raw[]> {
  const kafka = options.kafka ?? (await sharedKafka('assignor-test-raw'));
  const out: Raw[] = [];
  await replayTopic(
    kafka,
    topic,
    (batch: RawRecord[]) => {
      for (const m of batch) {
        const value = m.value === null ? null : m.value.toString('utf8');
        out.push({ offset: Number(m.offset), key: m.key?.toString('utf8') ?? '', value, timestamp: value === null ? undefined : (JSON.parse(value) as { timestamp: number }).timestamp });
      }
    },
    { readUncommitted: options.readUncommitted === true, stallTimeoutMs: 60_000 },
  );
  return out;
}

/**
 * Committed records cut into the transactions that wrote them: a transaction's records have
 * consecutive offsets (one writer, one partition) and its commit marker takes the next offset, so a
 * gap in the offsets (the marker, or an aborted transaction and its marker) starts the next one.
 */
export function commits(records: Raw[]): Raw[][] {
  const out: Raw[][] = [];
  let prev = -2;
  for (const r of records) {
    if (r.offset !== prev + 1) out.push([]);
    out[out.length - 1]!.push(r);
    prev = r.offset;
  }
  return out;
}

/** The state the records replay to. */
export function replay(records: Raw[]): ReplayedState {
  const s = new ReplayedState();
  for (const r of records) s.applyRecord(r.key, r.value, `@${r.offset}`);
  return s;
}

/** Follows a topic read_uncommitted: `last` is the highest offset of any record seen so far. */
export async function tailTopic(topic: string): Promise<{ last: number; stop(): Promise<void> }> {
  const kafka = await sharedKafka('assignor-test-tail');
  const consumer = kafka.consumer({ groupId: `assignor-test-tail-${process.pid}-${Date.now()}`, readUncommitted: true, maxWaitTimeInMs: 20, allowAutoTopicCreation: true });
  const t = {
    last: -1,
    stop: async (): Promise<void> => {
      await consumer.disconnect().catch(() => undefined);
    },
  };
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    eachBatch: async ({ batch }) => {
      for (const m of batch.messages) t.last = Math.max(t.last, Number(m.offset));
    },
  });
  return t;
}
