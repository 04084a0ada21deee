// Shared cluster builders for the standby tests.
import type { ClientSpec, ClusterSpec } from '../../src/standby/input.js';

export interface Node {
  id: string;
  tags: Record<string, string>;
  active?: string[];
  standby?: string[];
  capacity?: number;
}

export function cluster(nodes: Node[], numStandbys: number, tagKeys: string[], tasks?: string[]): ClusterSpec {
  const clients: ClientSpec[] = nodes.map((n) => ({ id: n.id, tags: n.tags, active: n.active ?? [], ...(n.standby ? { standby: n.standby } : {}), ...(n.capacity ? { capacity: n.capacity } : {}) }));
  return { clients, numStandbys, tagKeys, ...(tasks ? { tasks } : {}) };
}

/** The KIP's nodes: Node-1.. over clusters x zones, cluster-major. */
export function grid(clusters: number, zones: number, activeOnNode1 = ['0_0']): Node[] {
  const out: Node[] = [];
  let i = 1;
  for (let c = 1; c <= clusters; c++) {
    for (let z = 0; z < zones; z++) {
      out.push({ id: `Node-${i}`, tags: { cluster: `K8s_Cluster${c}`, zone: `eu-central-1${'abc'[z]}` }, active: i === 1 ? activeOnNode1 : [] });
      i++;
    }
  }
  return out;
}

/** UUID-style process ids as Kafka's tests write them: 00000000-0000-0000-0000-00000000000N. */
export function pid(n: number): string {
  return `00000000-0000-0000-0000-${n.toString(16).padStart(12, '0')}`;
}
