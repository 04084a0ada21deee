// The order Kafka's consumer assignors put members in (AbstractPartitionAssignor.MemberInfo):
// static members (with a group.instance.id) first, by instance id; then the others by member id.
// Both compared as Java's String.compareTo does, by UTF-16 code units, which is what `<` does.
import { byCodeUnits as compare } from '../basics.js';
import type { GroupMember } from './input.js';

/** Kafka's MemberInfo.compareTo. */
export function compareMembers(a: GroupMember, b: GroupMember): number {
  if (a.instanceId !== null && b.instanceId !== null) return compare(a.instanceId, b.instanceId);
  if (a.instanceId !== null) return -1;
  if (b.instanceId !== null) return 1;
  return compare(a.id, b.id);
}

/** Member indices (into `members`) in Kafka's order. */
export function kafkaOrder(members: readonly GroupMember[], indices: readonly number[]): number[] {
  return [...indices].sort((x, y) => compareMembers(members[x]!, members[y]!));
}
