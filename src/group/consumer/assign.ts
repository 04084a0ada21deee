// The consumer protocol (KIP-848, `group.protocol=consumer`): the broker assigns, with `uniform`
// (its default) or `range`, or with assignor's own plugin, `sticky` (jvm/, docs/broker.md). The members' `owned` partitions are the broker's current target
// assignment; claims it could not hold (partitions or topics that do not exist, topics the member
// does not subscribe, a partition two members claim) are resolved as for the classic protocol
// (report.ts, previousOwners) before the assignor sees them, as the broker's own state never holds them.
import { AssignorError, describe } from '../../errors.js';
import type { Group } from '../input.js';
import { derivedTopicId, formatTopicId, parseTopicId, type TopicId } from '../topic-id.js';
import { assignConsumerRange } from './range.js';
import { assignConsumerSticky } from './sticky.js';
import { assignUniform } from './uniform.js';
import { consumerView } from './view.js';

export const CONSUMER_STRATEGIES = ['uniform', 'range', 'sticky'] as const;
export type ConsumerStrategy = (typeof CONSUMER_STRATEGIES)[number];

/** Each assigned topic's id: the one given, or the one derived from its name; no two alike. */
export function topicIds(group: Group): TopicId[] {
  const seen = new Map<string, string>();
  return group.assigned.map((name) => {
    const given = group.topics.get(name)!.id;
    const id = given === null ? derivedTopicId(name) : parseTopicId(given);
    const text = formatTopicId(id);
    const other = seen.get(text);
    if (other !== undefined) {
      throw new AssignorError('E_INPUT', `topics ${describe(other)} and ${describe(name)} have the same id ${text}; give one an id of its own`, 'topics');
    }
    seen.set(text, name);
    return id;
  });
}

/** Owners per assigned topic (member index, -1: none), as the 4.4.0 broker's assignor gives them. */
export function assignConsumer(group: Group, current: Map<string, Int32Array>, strategy: ConsumerStrategy): Map<string, Int32Array> {
  const now = group.assigned.map((name) => current.get(name)!);
  const owners =
    strategy === 'range' ? assignConsumerRange(group) : strategy === 'sticky' ? assignConsumerSticky(group, topicIds(group), now) : assignUniform(consumerView(group, topicIds(group), now));
  return new Map(group.assigned.map((name, t) => [name, owners[t]!]));
}
