/**
 * @module pipeline/shard
 * One load generator split over N processes or hosts (`run --shard i/N`). Every shard builds
 * the full seeded workload and schedule, the same on every shard, and keeps request k when
 * k mod N = i. Request k's prompt, lengths and planned time are thus those of the unsharded
 * run (a function of the seed and k, never of a per-shard random stream), and the shards'
 * union is the same schedule for every N. A concurrency cap is split, the remainder spread
 * over the first shards. The hashes let `merge` refuse shards of different runs.
 */
import { createHash } from 'node:crypto';
import type { Problem } from '../core/errors.js';
import type { T } from '../i18n/index.js';
import type { LoadMode } from '../runner/load.js';
import type { RequestSpec } from '../workload/types.js';

/** How a shard decides what to send and when. */
export interface ShardSettings {
  index: number;
  count: number;
  /** The common start (Unix ms); required with count > 1. */
  startAtUnixMs: number | null;
  /** More than 1 s late: `fail` sends nothing and exits non-zero; `truncate` cancels missed arrivals. */
  latePolicy: 'fail' | 'truncate';
}

/** How late a shard may start before `--late-policy` applies (ms). */
export const LATE_LIMIT_MS = 1000;

/** The file names of shard i of N (never `report.json`: a folder of shards is not a run). */
export function shardFiles(index: number, count: number): { report: string; records: string } {
  return {
    report: `report.shard-${index}-of-${count}.json`,
    records: `requests.shard-${index}-of-${count}.jsonl`,
  };
}

/** Parse `i/N` (either part may come from the environment); problems pushed, null when unusable. */
export function parseShard(
  flag: string | undefined,
  env: Record<string, string | undefined>,
  problems: Problem[],
  t: T,
): { index: number; count: number } | null {
  const [fi, fn] = flag !== undefined ? flag.split('/') : [undefined, undefined];
  const idx = fi ?? env.JOB_COMPLETION_INDEX;
  const cnt = fn ?? env.SERVELAB_SHARD_COUNT;
  if (idx === undefined && cnt === undefined) return null;
  const index = Number(idx);
  const count = Number(cnt);
  if (!/^\d+$/.test(idx ?? '') || !/^\d+$/.test(cnt ?? '') || count < 1 || index >= count) {
    problems.push({
      path: '--shard',
      message: t('shard.flag.bad', {
        got: flag ?? `JOB_COMPLETION_INDEX=${idx ?? ''} SERVELAB_SHARD_COUNT=${cnt ?? ''}`,
      }),
      hint: t('shard.flag.hint'),
    });
    return null;
  }
  return { index, count };
}

/** Shard i's part of a cap of `total` over `count` shards: ⌊total/count⌋, one more for the first total mod count. */
export function splitCap(total: number, index: number, count: number): number {
  return Math.floor(total / count) + (index < total % count ? 1 : 0);
}

/** Keep request k when k mod count = index. */
export function shardIndices(total: number, index: number, count: number): number[] {
  const out: number[] = [];
  for (let k = index; k < total; k += count) out.push(k);
  return out;
}

/** The full schedule's hash: every request's content, lengths and planned offset, in order. */
export function scheduleHash(specs: readonly RequestSpec[], load: LoadMode): string {
  const h = createHash('sha256');
  const arrivals = load.kind === 'open' ? [...load.arrivalsMs] : null;
  h.update(JSON.stringify({ kind: load.kind, n: specs.length }));
  specs.forEach((s, k) => {
    h.update(
      JSON.stringify([
        s.index,
        s.prompt ?? null,
        s.messages ?? null,
        s.input_len,
        s.output_len,
        arrivals ? arrivals[k] : null,
      ]),
    );
  });
  return h.digest('hex');
}

/** A stable hash of a configuration (keys sorted at every depth). */
export function configHash(config: unknown): string {
  return createHash('sha256').update(stableJson(config)).digest('hex');
}

function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (v !== null && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

/**
 * Shard `index` of `count`'s part of the full plan: its specs (global indices kept, so records
 * say which request k they are) and its load (its arrivals, its share of the cap).
 */
export function shardPlan(
  specs: readonly RequestSpec[],
  load: LoadMode,
  index: number,
  count: number,
  problems: Problem[],
  t: T,
): { specs: RequestSpec[]; load: LoadMode } {
  if (load.kind === 'sessions') {
    // A session's turns depend on each other (history), so they cannot be dealt out request by
    // request; sharding by session would need its own merge of the sessions block.
    problems.push({
      path: '--shard',
      message: t('sessions.shard.refused'),
      hint: t('sessions.shard.refused_hint'),
    });
    return { specs: [...specs], load };
  }
  const keep = shardIndices(specs.length, index, count);
  const mine = keep.map((k) => specs[k]);
  if (load.kind === 'open') {
    const cap = load.maxConcurrency ?? null;
    if (cap !== null && cap < count)
      problems.push({
        path: '--max-concurrency',
        message: t('shard.cap.split', { cap, count }),
        hint: t('shard.cap.hint', { flag: '--max-concurrency', count }),
      });
    const all = [...load.arrivalsMs];
    return {
      specs: mine,
      load: {
        kind: 'open',
        arrivalsMs: keep.map((k) => all[k]),
        maxConcurrency: cap === null ? null : splitCap(cap, index, count),
        durationMs: load.durationMs ?? null,
      },
    };
  }
  if (load.concurrency < count)
    problems.push({
      path: '--concurrency',
      message: t('shard.cap.split', { cap: load.concurrency, count }),
      hint: t('shard.cap.hint', { flag: '--concurrency', count }),
    });
  return {
    specs: mine,
    load: {
      kind: 'closed',
      concurrency: splitCap(load.concurrency, index, count),
      requests: load.requests != null ? shardIndices(load.requests, index, count).length : null,
      durationMs: load.durationMs ?? null,
    },
  };
}

/** The `run` flags that make a shard (raw strings, as the CLI gives them). */
export interface RawShardFlags {
  shard?: string;
  startAt?: string;
  startIn?: string;
  latePolicy?: string;
}

/**
 * The seed of a sharded run given no `--seed`: every shard must draw the same one, and the
 * common `--start-at` is what they share (a fresh instant for each run).
 */
export function seedOfStart(startAtUnixMs: number): number {
  return Math.floor(startAtUnixMs) % 2 ** 31;
}

/**
 * The shard settings from `--shard`/`--start-at`/`--start-in`/`--late-policy` and the
 * environment; null for an unsharded run. `--start-in` counts from `nowUnixMs`.
 */
export function parseShardSettings(
  raw: RawShardFlags,
  env: Record<string, string | undefined>,
  nowUnixMs: number,
  problems: Problem[],
  t: T,
): ShardSettings | null {
  const shard = parseShard(raw.shard, env, problems, t);
  const policy = raw.latePolicy ?? 'fail';
  if (policy !== 'fail' && policy !== 'truncate')
    problems.push({
      path: '--late-policy',
      message: t('shard.late.bad', { got: policy }),
      hint: t('shard.late.hint'),
    });
  let startAtUnixMs: number | null = null;
  if (raw.startAt !== undefined && raw.startIn !== undefined)
    problems.push({ path: '--start-at', message: t('shard.start.both'), hint: t('shard.start.hint') });
  else if (raw.startAt !== undefined) {
    // RFC 3339: a date, `T`, a time and an offset (Z or ±hh:mm).
    const ok = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(raw.startAt);
    const ms = ok ? Date.parse(raw.startAt) : Number.NaN;
    if (Number.isFinite(ms)) startAtUnixMs = ms;
    else
      problems.push({
        path: '--start-at',
        message: t('shard.start.bad', { got: raw.startAt }),
        hint: t('shard.start.hint'),
      });
  } else if (raw.startIn !== undefined) {
    const s = Number(raw.startIn);
    if (raw.startIn.trim() !== '' && Number.isFinite(s) && s >= 0) startAtUnixMs = nowUnixMs + s * 1000;
    else
      problems.push({
        path: '--start-in',
        message: t('shard.start.badIn', { got: raw.startIn }),
        hint: t('shard.start.hint'),
      });
  }
  if (!shard) {
    if (startAtUnixMs !== null || raw.latePolicy !== undefined)
      problems.push({ path: '--start-at', message: t('shard.start.noShard'), hint: t('shard.flag.hint') });
    return null;
  }
  if (shard.count > 1 && startAtUnixMs === null && raw.startAt === undefined && raw.startIn === undefined)
    problems.push({ path: '--start-at', message: t('shard.start.required'), hint: t('shard.start.hint') });
  return { ...shard, startAtUnixMs, latePolicy: policy === 'truncate' ? 'truncate' : 'fail' };
}

/**
 * The id every shard of one run shares: from its configuration and schedule (not the start:
 * shards started apart by `--start-in` are still one run, and `merge` warns about the spread).
 */
export function commonRunId(cfgHash: string, schedHash: string): string {
  return createHash('sha256').update(`${cfgHash}:${schedHash}`).digest('hex').slice(0, 16);
}
