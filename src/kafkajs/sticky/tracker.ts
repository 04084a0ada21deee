// What this consumer owns, and since which generation.
//
// KafkaJS gives an assigner neither its own member's assignment nor the group generation: an
// assigner sees `protocol({ topics })` on every join and, on the leader, `assign(...)`. A sticky
// assigner needs both, so that each member can claim its partitions (with the generation they
// were assigned in) when the group rebalances. The only place KafkaJS holds them is its call to
// the group coordinator: `cluster.findGroupCoordinator({ groupId })` returns the coordinator
// broker, whose `joinGroup` answers with the generation and `syncGroup` with this member's
// assignment bytes (our note to the member included). So the tracker wraps those three methods on
// this consumer's own cluster object (KafkaJS builds one cluster per consumer), for this group id
// only, and records what passes: nothing is changed, every call and error passes through.
// KafkaJS 2.2.4 is its last release, so these internals are fixed; when they are missing the
// tracker reports it and the assigner still balances, but cannot be sticky.
import { decodeAssignment, type DecodedAssignment } from '../../group/protocol.js';

export interface MemberState {
  /** Generation of the assignment this member holds; -1 when it holds none. */
  generation: number;
  /** The assignment, as the leader sent it (with its note in userData). */
  assignment: DecodedAssignment | null;
  /** Generation of the JoinGroup under way (the one a leader assigns for), when known. */
  joining: number | null;
}

export interface Tracker {
  readonly state: MemberState;
  /** False when the cluster object did not offer the coordinator to observe. */
  readonly active: boolean;
}

interface JoinRequest {
  groupId: string;
}
interface JoinResponse {
  generationId: number;
}
interface SyncRequest {
  groupId: string;
  generationId: number;
}
interface SyncResponse {
  memberAssignment: Uint8Array;
}
type AsyncMethod<A, R> = (this: unknown, request: A, ...rest: unknown[]) => Promise<R>;

interface CoordinatorLike {
  joinGroup?: AsyncMethod<JoinRequest, JoinResponse>;
  syncGroup?: AsyncMethod<SyncRequest, SyncResponse>;
  leaveGroup?: AsyncMethod<JoinRequest, unknown>;
  [key: symbol]: unknown;
}

interface ClusterLike {
  findGroupCoordinator?: (this: unknown, args: { groupId: string }, ...rest: unknown[]) => Promise<CoordinatorLike>;
  [key: symbol]: unknown;
}

// Private to this copy of the library: two copies in one process each observe for themselves.
const WRAPPED = Symbol('assignor.sticky.wrapped');
const trackers = new WeakMap<object, Map<string, Tracker & { state: MemberState }>>();

function observe(cluster: ClusterLike, coordinator: CoordinatorLike): void {
  if (coordinator === null || typeof coordinator !== 'object' || coordinator[WRAPPED] === true) return;
  coordinator[WRAPPED] = true;
  const stateOf = (g: unknown): MemberState | undefined => (typeof g === 'string' ? trackers.get(cluster)?.get(g)?.state : undefined);
  const join = coordinator.joinGroup;
  if (typeof join === 'function') {
    coordinator.joinGroup = async function (this: unknown, request: JoinRequest, ...rest: unknown[]) {
      const response = await join.call(this, request, ...rest);
      const st = stateOf(request?.groupId);
      if (st !== undefined && typeof response?.generationId === 'number') st.joining = response.generationId;
      return response;
    };
  }
  const sync = coordinator.syncGroup;
  if (typeof sync === 'function') {
    coordinator.syncGroup = async function (this: unknown, request: SyncRequest, ...rest: unknown[]) {
      const response = await sync.call(this, request, ...rest);
      const st = stateOf(request?.groupId);
      if (st !== undefined && typeof request.generationId === 'number') {
        const bytes = response?.memberAssignment;
        st.assignment = bytes instanceof Uint8Array ? decodeAssignment(bytes) : null;
        st.generation = request.generationId;
      }
      return response;
    };
  }
  const leave = coordinator.leaveGroup;
  if (typeof leave === 'function') {
    coordinator.leaveGroup = async function (this: unknown, request: JoinRequest, ...rest: unknown[]) {
      const response = await leave.call(this, request, ...rest);
      const st = stateOf(request?.groupId);
      if (st !== undefined) {
        // A member that left owns nothing: if it comes back, it comes back empty-handed.
        st.assignment = null;
        st.generation = -1;
      }
      return response;
    };
  }
}

/** The tracker of (cluster, groupId), installing the observation on first use. */
export function trackMember(cluster: unknown, groupId: string): Tracker {
  const c = cluster as ClusterLike;
  let perGroup = typeof cluster === 'object' && cluster !== null ? trackers.get(cluster) : undefined;
  const existing = perGroup?.get(groupId);
  if (existing !== undefined) return existing;
  const find = c?.findGroupCoordinator;
  const active = typeof find === 'function';
  const tracker = { state: { generation: -1, assignment: null, joining: null } as MemberState, active };
  if (!active) return tracker;
  if (perGroup === undefined) {
    perGroup = new Map();
    trackers.set(c, perGroup);
  }
  perGroup.set(groupId, tracker);
  if (c[WRAPPED] !== true) {
    c[WRAPPED] = true;
    c.findGroupCoordinator = async function (this: unknown, args: { groupId: string }, ...rest: unknown[]) {
      const coordinator = await find.call(this, args, ...rest);
      if (trackers.get(c)?.has(args?.groupId) === true) observe(c, coordinator);
      return coordinator;
    };
  }
  return tracker;
}
