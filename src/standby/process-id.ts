// Client (process) ids and their order. Kafka's ProcessId wraps a UUID and
// compares like java.util.UUID.compareTo: most significant 64 bits first, then
// least significant, each as a *signed* long, so ids starting with 8..f sort
// before ids starting with 0..7. Plain-string ids (allowed for readability)
// sort after every UUID, by UTF-16 code units (Java String.compareTo).
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface ProcessKey {
  readonly id: string;
  /** The canonical form used to detect duplicates: lower-case for UUIDs. */
  readonly canonical: string;
  /** The two signed 64-bit halves, or null for a plain-string id. */
  readonly msb: bigint | null;
  readonly lsb: bigint | null;
}

export function processKey(id: string): ProcessKey {
  if (!UUID.test(id)) return { id, canonical: id, msb: null, lsb: null };
  const hex = id.replace(/-/g, '');
  return {
    id,
    canonical: id.toLowerCase(),
    msb: BigInt.asIntN(64, BigInt(`0x${hex.slice(0, 16)}`)),
    lsb: BigInt.asIntN(64, BigInt(`0x${hex.slice(16)}`)),
  };
}

/** ProcessId order: UUIDs by signed (msb, lsb), then plain strings by code units. */
export function compareProcessKeys(a: ProcessKey, b: ProcessKey): number {
  if (a.msb !== null && b.msb !== null) {
    if (a.msb !== b.msb) return a.msb < b.msb ? -1 : 1;
    if (a.lsb! !== b.lsb!) return a.lsb! < b.lsb! ? -1 : 1;
    return 0;
  }
  if (a.msb !== null) return -1;
  if (b.msb !== null) return 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
