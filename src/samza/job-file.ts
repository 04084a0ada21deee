// job.json: the Samza config plus each input stream's partition count (the
// metadata Samza would fetch from the system). Format in docs/samza.md.
import { INT32_MAX } from '../basics.js';
import { AssignorError, describe, requireInt } from '../errors.js';
import { SamzaConfig } from './config.js';
import type { JobInput, MapperMode } from './plan.js';

export interface JobFile extends JobInput {
  mapper?: MapperMode;
  allowKeyMovement?: boolean;
  processors?: Map<string, string>;
}

const TOP = new Set(['config', 'partitions', 'mapper', 'allowKeyMovement', 'processors']);

function object(v: unknown, path: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new AssignorError('E_JOB', `${path} must be a JSON object, got ${describe(v)}`, path);
  return v as Record<string, unknown>;
}

/** Own entries only (JSON.parse makes `__proto__` an own key, which we keep as a plain name). */
function entries(o: Record<string, unknown>): [string, unknown][] {
  return Object.keys(o).map((k) => [k, o[k]]);
}

/** The job's members without those that are null: an optional field written as null is left out (docs/formats.md). */
function withoutNulls(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(o)) if (o[k] !== null) Object.defineProperty(out, k, { value: o[k], enumerable: true, writable: true, configurable: true });
  return out;
}

export function parseJobFile(json: unknown): JobFile {
  const top = withoutNulls(object(json, 'job'));
  for (const k of Object.keys(top)) {
    if (!TOP.has(k)) throw new AssignorError('E_JOB', `unknown field ${JSON.stringify(k)} in job: expected ${[...TOP].join(', ')}`, k);
  }
  if (!Object.hasOwn(top, 'config')) throw new AssignorError('E_JOB', 'job has no "config" object', 'config');
  const config = new SamzaConfig(
    entries(object(top.config, 'config')).map(([k, v]): [string, string] => {
      if (typeof v === 'string') return [k, v];
      if (typeof v === 'number' || typeof v === 'boolean') return [k, String(v)];
      throw new AssignorError('E_JOB', `config value of ${JSON.stringify(k)} must be a string, number or boolean, got ${describe(v)}`, `config.${k}`);
    }),
  );
  const partitionCounts = new Map<string, number>();
  if (Object.hasOwn(top, 'partitions')) {
    for (const [k, v] of entries(object(top.partitions, 'partitions'))) partitionCounts.set(k, requireInt(v, 1, INT32_MAX, `partition count of ${k}`, `partitions.${k}`));
  }
  const out: JobFile = { config, partitionCounts };
  if (Object.hasOwn(top, 'mapper')) {
    if (top.mapper !== 'base' && top.mapper !== 'samza') throw new AssignorError('E_JOB', `mapper must be "base" or "samza", got ${describe(top.mapper)}`, 'mapper');
    out.mapper = top.mapper;
  }
  if (Object.hasOwn(top, 'allowKeyMovement')) {
    if (typeof top.allowKeyMovement !== 'boolean') throw new AssignorError('E_JOB', `allowKeyMovement must be true or false, got ${describe(top.allowKeyMovement)}`, 'allowKeyMovement');
    out.allowKeyMovement = top.allowKeyMovement;
  }
  if (Object.hasOwn(top, 'processors')) {
    // An object {id: host}, or, when the id order matters (GroupByContainerIds round-robins in the
    // given order, and JSON objects list integer-like keys first), an array of {"id", "host"}.
    const procs = new Map<string, string>();
    const add = (id: unknown, host: unknown, path: string): void => {
      if (typeof id !== 'string') throw new AssignorError('E_JOB', `processor id must be a string, got ${describe(id)}`, path);
      // Samza passes the ids to the groupers as the comma-joined processor.list, so an id cannot be empty or hold a comma.
      if (id === '' || id.includes(',')) throw new AssignorError('E_JOB', `processor id ${JSON.stringify(id)} must be non-empty and contain no comma (processor.list is comma-separated)`, path);
      if (typeof host !== 'string') throw new AssignorError('E_JOB', `host of processor ${JSON.stringify(id)} must be a string, got ${describe(host)}`, path);
      if (procs.has(id)) throw new AssignorError('E_JOB', `processor ${JSON.stringify(id)} is listed twice`, path);
      procs.set(id, host);
    };
    if (Array.isArray(top.processors)) {
      top.processors.forEach((p, i) => {
        const o = object(p, `processors[${i}]`);
        for (const k of Object.keys(o)) {
          if (k !== 'id' && k !== 'host') throw new AssignorError('E_JOB', `unknown field ${JSON.stringify(k)} in processors[${i}]: expected id, host`, `processors[${i}].${k}`);
        }
        add(Object.hasOwn(o, 'id') ? o.id : undefined, Object.hasOwn(o, 'host') ? o.host : 'ANY_HOST', `processors[${i}]`);
      });
    } else {
      for (const [id, host] of entries(object(top.processors, 'processors'))) add(id, host, `processors.${id}`);
    }
    if (procs.size === 0) throw new AssignorError('E_JOB', 'processors must list at least one processor (leave it out for the default ids "0".."job.container.count-1")', 'processors');
    out.processors = procs;
  }
  return out;
}
