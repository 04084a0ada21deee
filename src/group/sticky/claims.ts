// What a member of a sticky group claims to own, as the planner reads it: flat arrays, one entry
// per claimed topic (the wire protocol decodes userData straight into this shape).

/** What a member claims: flat arrays, one entry per claimed topic. */
export interface Claims {
  /** Broker generation of the assignment claimed; -1 when there is none. */
  generation: number;
  rack: string | null;
  /** Fingerprint of the group the assignment was made for (16 hex digits), '' when none. */
  fingerprint: string;
  /** Per claim: index into the subscription's topics. */
  topic: Int32Array;
  /** Per claim: the topic's partition count when it was assigned (0: unknown). */
  count: Int32Array;
  /** Claim c's partitions are partitions[start[c] .. start[c + 1]), ascending. */
  start: Int32Array;
  partitions: Int32Array;
}
