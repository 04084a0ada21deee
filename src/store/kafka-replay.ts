// Reading a coordinator-stream topic: every committed record of partition 0 from the oldest offset
// to the end found at the start, in offset order. read_committed: the end is the last stable offset
// (ListOffsets with read_committed; the high watermark when no transaction is open), so a reader
// never waits for a writer's open transaction, and records of aborted transactions and the markers
// are skipped. KafkaJS has no assign(), so the read runs as the only member of a throwaway consumer
// group that commits nothing and is deleted afterwards.
import type { Admin, Kafka } from 'kafkajs';
import { fail } from '../errors.js';
import { kafkaMessage } from './kafka-client.js';

/** How long a read waits for a just-committed transaction's marker (the last stable offset to catch up). */
const SETTLE_MS = 2000;

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
  /** Also return records of aborted and open transactions (diagnostics and tests; never for state). */
  readUncommitted?: boolean;
}

export interface ReplayResult {
  /** Offsets read: [low, high) (high: the last stable offset when the read started; read_uncommitted: the high watermark). */
  low: number;
  high: number;
  /** Records handed to `apply` (committed data records; markers and aborted records excluded). */
  records: number;
  /** Key and value bytes of those records. */
  bytes: number;
}

/**
 * Calls `apply` for every committed record of partition 0 in offset order, up to the last stable
 * offset found at the start. `apply` runs synchronously per batch; throwing from it stops the read.
 */
export async function replayTopic(kafka: Kafka, topic: string, apply: (batch: RawRecord[]) => void, options: ReplayOptions = {}): Promise<ReplayResult> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    return await replayWith(kafka, admin, topic, apply, options);
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/** The last stable offset and the oldest offset of partition 0 (KafkaJS's ListOffsets is read_committed). */
async function stableOffsets(admin: Admin, topic: string): Promise<{ low: number; high: number }> {
  const p0 = (await admin.fetchTopicOffsets(topic)).find((o) => o.partition === 0);
  if (p0 === undefined) fail('E_STORE_KAFKA_TOPIC', `Kafka topic ${topic} has no partition 0`, topic);
  return { low: Number(p0.low), high: Number(p0.high) };
}

async function replayWith(kafka: Kafka, admin: Admin, topic: string, apply: (batch: RawRecord[]) => void, options: ReplayOptions): Promise<ReplayResult> {
  const { low, high: stable } = await stableOffsets(admin, topic);
  const result: ReplayResult = { low, high: stable, records: 0, bytes: 0 };
  if (stable <= low) return result;
  const uncommitted = options.readUncommitted === true;
  if (uncommitted) result.high = Number.MAX_SAFE_INTEGER; // set from the first fetch's high watermark

  const groupId = `${options.groupPrefix ?? 'assignor-store-reader'}-${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
  const consumer = kafka.consumer({
    groupId,
    readUncommitted: uncommitted,
    // Large fetches: the store is read once, start to end.
    maxBytesPerPartition: 16 << 20,
    maxBytes: 64 << 20,
    minBytes: 1,
    maxWaitTimeInMs: 250,
    allowAutoTopicCreation: false,
  });
  const stallMs = options.stallTimeoutMs ?? 60_000;
  let next = low; // the offset after the last one processed (data, aborted or marker)
  let watermark = stable; // the highest high watermark the fetches reported
  let failed: unknown;
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  let lastProgress = Date.now();
  // A transaction committed just before the read may still be waiting for its marker: the last
  // stable offset then trails the high watermark for a moment. Re-ask for a short while (SETTLE_MS)
  // and read on from where we stopped, so a read right after a commit sees it; what is still beyond
  // after that belongs to an open transaction. Records at or past the end are never applied: the end
  // is a transaction boundary, a fetch may not be.
  let settleUntil = 0;
  let settling = false;
  const reachedEnd = (): void => {
    if (next < result.high || settling) return;
    if (watermark <= result.high) return finish();
    if (settleUntil === 0) settleUntil = Date.now() + SETTLE_MS;
    if (Date.now() > settleUntil) return finish();
    settling = true;
    setTimeout(() => {
      stableOffsets(admin, topic).then(
        (o) => {
          settling = false;
          const end = uncommitted ? watermark : o.high;
          if (end > result.high) {
            next = result.high;
            result.high = end;
            consumer.seek({ topic, partition: 0, offset: String(next) });
          }
          reachedEnd();
        },
        (e: unknown) => {
          failed ??= e;
          finish();
        },
      );
    }, 50);
  };
  const progress = (lastOffset: string, highWatermark: string): void => {
    if (uncommitted) result.high = Math.max(stable, Number(highWatermark));
    const n = Math.min(Number(lastOffset) + 1, result.high);
    if (n > next) {
      next = n;
      lastProgress = Date.now();
    }
    watermark = Math.max(watermark, Number(highWatermark));
    reachedEnd();
  };
  // END_BATCH_PROCESS also fires for batches holding only markers or aborted records, which never reach eachBatch.
  consumer.on(consumer.events.END_BATCH_PROCESS, (e) => {
    if (e.payload.partition === 0) progress(e.payload.lastOffset, e.payload.highWatermark);
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
          : `stuck at offset ${next} of ${result.high} for ${stallMs} ms`,
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
        if (failed !== undefined) return;
        const rows: RawRecord[] = [];
        for (const m of batch.messages) {
          const o = Number(m.offset);
          if (o < next) continue;
          if (o >= result.high) break;
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
