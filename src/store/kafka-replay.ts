// Reading a coordinator-stream topic: every committed record of partition 0 from the oldest offset
// to the high watermark, in offset order (read_committed: records of aborted transactions and the
// transaction markers are skipped). KafkaJS has no assign(), so the read runs as the only member of
// a throwaway consumer group that commits nothing and is deleted afterwards.
import type { Kafka } from 'kafkajs';
import { fail } from '../errors.js';
import { kafkaMessage } from './kafka-client.js';

export interface RawRecord {
  key: Buffer | null;
  value: Buffer | null;
  offset: string;
}

export interface ReplayOptions {
  /** Give up when no progress is made for this long (ms; default 60000), e.g. behind an open transaction. */
  stallTimeoutMs?: number;
  /** Group id prefix of the throwaway reader group. */
  groupPrefix?: string;
}

export interface ReplayResult {
  /** Offsets read: [low, high) (high is the high watermark when the read started). */
  low: number;
  high: number;
  /** Records handed to `apply` (committed data records; markers and aborted records excluded). */
  records: number;
  /** Key and value bytes of those records. */
  bytes: number;
}

/**
 * Calls `apply` for every committed record of partition 0 in offset order, up to the high watermark
 * found at the start. `apply` runs synchronously per batch; throwing from it stops the read.
 */
export async function replayTopic(kafka: Kafka, topic: string, apply: (batch: RawRecord[]) => void, options: ReplayOptions = {}): Promise<ReplayResult> {
  const admin = kafka.admin();
  await admin.connect();
  let low = 0;
  let high = 0;
  try {
    const offsets = await admin.fetchTopicOffsets(topic);
    const p0 = offsets.find((o) => o.partition === 0);
    if (p0 === undefined) fail('E_STORE_KAFKA_TOPIC', `Kafka topic ${topic} has no partition 0`, topic);
    low = Number(p0.low);
    high = Number(p0.high);
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
  const result: ReplayResult = { low, high, records: 0, bytes: 0 };
  if (high <= low) return result;

  const groupId = `${options.groupPrefix ?? 'assignor-store-reader'}-${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
  const consumer = kafka.consumer({
    groupId,
    readUncommitted: false,
    // Large fetches: the store is read once, start to end.
    maxBytesPerPartition: 16 << 20,
    maxBytes: 64 << 20,
    minBytes: 1,
    maxWaitTimeInMs: 250,
    allowAutoTopicCreation: false,
  });
  const stallMs = options.stallTimeoutMs ?? 60_000;
  let next = low; // the offset after the last one processed (data, aborted or marker)
  let failed: unknown;
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  let lastProgress = Date.now();
  const progress = (lastOffset: string): void => {
    const n = Number(lastOffset) + 1;
    if (n > next) {
      next = n;
      lastProgress = Date.now();
    }
    if (next >= high) finish();
  };
  // END_BATCH_PROCESS also fires for batches holding only markers or aborted records, which never reach eachBatch.
  consumer.on(consumer.events.END_BATCH_PROCESS, (e) => {
    if (e.payload.partition === 0) progress(e.payload.lastOffset);
  });
  consumer.on(consumer.events.CRASH, (e) => {
    // A retriable crash (e.g. the group coordinator still loading) is restarted by KafkaJS itself.
    if (e.payload.restart) return;
    failed ??= e.payload.error;
    finish();
  });
  const timer = setInterval(() => {
    if (Date.now() - lastProgress > stallMs) {
      failed ??= new Error(
        next === low
          ? `no records arrived within ${stallMs} ms`
          : `stuck at offset ${next} of ${high} for ${stallMs} ms: the records from there on belong to a transaction that is neither committed nor aborted (a coordinator is writing now, or crashed while writing: its transaction is aborted when it restarts, or after its transaction timeout)`,
      );
      finish();
    }
  }, Math.min(1000, stallMs));
  try {
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: true,
      eachBatch: async ({ batch }) => {
        if (failed !== undefined || next >= high) return;
        const rows: RawRecord[] = [];
        for (const m of batch.messages) {
          if (Number(m.offset) >= high) break;
          rows.push({ key: m.key, value: m.value, offset: m.offset });
          result.bytes += (m.key?.length ?? 0) + (m.value?.length ?? 0);
        }
        try {
          apply(rows);
          result.records += rows.length;
        } catch (e) {
          failed ??= e;
          finish();
        }
      },
    });
    await done;
  } finally {
    clearInterval(timer);
    await consumer.disconnect().catch(() => undefined);
    await deleteGroup(kafka, groupId);
  }
  if (failed !== undefined) {
    if (failed instanceof Error && failed.name === 'AssignorError') throw failed;
    fail('E_STORE_KAFKA', `reading Kafka topic ${topic} failed: ${kafkaMessage(failed)}`, topic);
  }
  return result;
}

async function deleteGroup(kafka: Kafka, groupId: string): Promise<void> {
  const admin = kafka.admin();
  try {
    await admin.connect();
    await admin.deleteGroups([groupId]);
  } catch {
    // Best effort: an empty group without offsets expires on its own.
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}
