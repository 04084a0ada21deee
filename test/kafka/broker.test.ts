// The real broker the integration tests use: it answers, stores and returns records, and keeps
// the topic configs the coordinator store relies on (compaction).
import { describe, expect, it } from 'vitest';
import { sharedKafka, uniqueTopic, useSharedBroker, withAdmin } from './shared-broker.js';

describe('the test broker (Kafka 4.x KRaft on 127.0.0.1)', () => {
  useSharedBroker();

  it('answers a metadata request with one broker and a controller', async () => {
    const meta = await withAdmin((admin) => admin.describeCluster());
    expect(meta.brokers).toHaveLength(1);
    expect(meta.brokers[0]!.host).toBe('127.0.0.1');
    expect(meta.controller).toBe(meta.brokers[0]!.nodeId);
  });

  it('round-trips records through a new topic and grows its partition count', async () => {
    const topic = uniqueTopic('smoke');
    await withAdmin((admin) => admin.createTopics({ topics: [{ topic, numPartitions: 2, configEntries: [{ name: 'cleanup.policy', value: 'compact' }] }], waitForLeaders: true }));
    const kafka = await sharedKafka();
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic, messages: [{ key: 'k1', value: 'v1', partition: 0 }, { key: 'k2', value: 'v2', partition: 1 }] });
    await producer.disconnect();
    const offsets = await withAdmin((admin) => admin.fetchTopicOffsets(topic));
    expect(offsets.map((o) => [o.partition, o.high]).sort()).toEqual([[0, '1'], [1, '1']]);
    const configs = await withAdmin((admin) => admin.describeConfigs({ resources: [{ type: 2, name: topic, configNames: ['cleanup.policy'] }], includeSynonyms: false }));
    expect(configs.resources[0]!.configEntries[0]!.configValue).toBe('compact');
    await withAdmin((admin) => admin.createPartitions({ topicPartitions: [{ topic, count: 5 }] }));
    const meta = await withAdmin((admin) => admin.fetchTopicMetadata({ topics: [topic] }));
    expect(meta.topics[0]!.partitions).toHaveLength(5);
  });
});
