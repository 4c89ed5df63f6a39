/**
 * @module analysis/trace-stats
 * What `servelab trace stats` says about a trace, as pure functions over its arrival times,
 * lengths and (Mooncake) block hashes, so a user can see whether a trace fits the planned test:
 *
 * - **rate over time**: requests per bin of `bin_s` seconds from the first arrival (the bin is
 *   the smallest of 1, 2, 5, 10, 15, 30 s, 1, 2, 5, 10, 15, 30 min, 1 h that gives at most 60
 *   bins), as req/s;
 * - **lengths**: the distribution of input and output tokens (`describe`: numpy's linear percentiles);
 * - **burstiness**: the coefficient of variation of the inter-arrival times, CV = σ / μ of the
 *   gaps (population σ): 1 for a Poisson process, above 1 burstier, 0 for a constant rate
 *   (the same reading as the gamma arrivals' 1/√k in `schedule/arrivals`);
 * - **prefix sharing** (Mooncake): the share of prompt tokens in blocks whose hash an earlier
 *   request already had. Hashes are chained, so a seen hash means its whole prefix was seen:
 *   this is the hit rate an infinite prefix cache would reach, and what the simulator's
 *   prefix-cache hit rate is compared against. A seen block counts with the tokens it had then
 *   at most (a last, partial block may be shorter than the full one seen before, or longer).
 *
 * "No data" is null with a reason code, never 0.
 */
import { describe, type Stats } from './stats.js';

/** Bin widths (s) tried for the rate over time, smallest first. */
export const RATE_BINS_S = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600] as const;
/** Most bins the rate over time is cut into (unless the trace spans more than 60 h). */
export const MAX_RATE_BINS = 60;

/** Requests per second in consecutive bins from the first arrival. */
export interface RateOverTime {
  bin_s: number;
  /** Start of each bin, s since the first arrival. */
  t_s: number[];
  rps: number[];
}

/**
 * The arrival rate over time.
 * @param timestampsMs arrival times (ms, any origin), non-decreasing
 * @returns null for an empty trace
 * @example rateOverTime([0, 500, 1500]) // { bin_s: 1, t_s: [0, 1], rps: [2, 1] }
 */
export function rateOverTime(timestampsMs: readonly number[]): RateOverTime | null {
  if (timestampsMs.length === 0) return null;
  const t0 = timestampsMs[0];
  const spanS = (timestampsMs[timestampsMs.length - 1] - t0) / 1000;
  const bin = RATE_BINS_S.find((b) => spanS / b < MAX_RATE_BINS) ?? RATE_BINS_S[RATE_BINS_S.length - 1];
  const n = Math.floor(spanS / bin) + 1;
  const counts = new Array<number>(n).fill(0);
  for (const ts of timestampsMs) counts[Math.min(n - 1, Math.floor((ts - t0) / 1000 / bin))]++;
  return { bin_s: bin, t_s: counts.map((_, i) => i * bin), rps: counts.map((c) => c / bin) };
}

/** A value, or null with the reason there is none. */
export type Maybe<T, R extends string> = { value: T; reason: null } | { value: null; reason: R };

/**
 * The coefficient of variation of the inter-arrival times.
 * @returns null with `few_gaps` under 3 arrivals, `same_time` when every gap is 0
 * @example interArrivalCv([0, 1000, 2000, 3000]).value // 0 (a constant rate)
 */
export function interArrivalCv(timestampsMs: readonly number[]): Maybe<number, 'few_gaps' | 'same_time'> {
  if (timestampsMs.length < 3) return { value: null, reason: 'few_gaps' };
  const gaps = interArrivalGapsMs(timestampsMs);
  const s = describe(gaps);
  if (!s.mean) return { value: null, reason: 'same_time' };
  return { value: (s.std as number) / s.mean, reason: null };
}

/** The gaps between consecutive arrivals, ms. */
export function interArrivalGapsMs(timestampsMs: readonly number[]): number[] {
  const gaps = new Array<number>(Math.max(0, timestampsMs.length - 1));
  for (let i = 1; i < timestampsMs.length; i++) gaps[i - 1] = timestampsMs[i] - timestampsMs[i - 1];
  return gaps;
}

/** How much of a Mooncake trace's prompts earlier requests already had. */
export interface PrefixSharing {
  /** Shared prompt tokens / all prompt tokens. */
  ratio: number;
  shared_tokens: number;
  total_tokens: number;
  /** Blocks (over every request) whose hash was already seen, and all blocks. */
  blocks_seen: number;
  blocks: number;
  block_size: number;
}

/**
 * The prefix-sharing ratio of requests given as block hashes (see the module comment).
 * @param requests each request's hash_ids and input length, in arrival order
 * @param blockSize tokens per block; the last block holds the remainder of the input length
 * @returns null when no request has block hashes
 * @example prefixSharing([{ hash_ids: [1, 2], input_len: 20 }, { hash_ids: [1, 3], input_len: 20 }], 10).ratio // 0.25
 */
export function prefixSharing(
  requests: readonly { hash_ids?: readonly number[]; input_len?: number | null }[],
  blockSize: number,
): PrefixSharing | null {
  const seen = new Map<number, number>();
  let shared = 0;
  let total = 0;
  let blocksSeen = 0;
  let blocks = 0;
  for (const r of requests) {
    const ids = r.hash_ids;
    if (!ids || ids.length === 0 || r.input_len == null) continue;
    for (let j = 0; j < ids.length; j++) {
      const tokens = j === ids.length - 1 ? r.input_len - j * blockSize : blockSize;
      const before = seen.get(ids[j]);
      blocks++;
      total += tokens;
      if (before !== undefined) {
        blocksSeen++;
        shared += Math.min(before, tokens);
        if (tokens > before) seen.set(ids[j], tokens);
      } else seen.set(ids[j], tokens);
    }
  }
  if (blocks === 0) return null;
  return {
    ratio: total > 0 ? shared / total : 0,
    shared_tokens: shared,
    total_tokens: total,
    blocks_seen: blocksSeen,
    blocks,
    block_size: blockSize,
  };
}

/** One trace's statistics (`servelab trace stats --json`). */
export interface TraceStats {
  requests: number;
  /** Last arrival − first, s. */
  span_s: number;
  /** (Requests − 1) / span: the mean rate of the arrivals after the first (null when the span is 0). */
  mean_rate_rps: number | null;
  rate_over_time: RateOverTime | null;
  input_tokens: Stats;
  output_tokens: Stats;
  inter_arrival_ms: Stats;
  burstiness_cv: Maybe<number, 'few_gaps' | 'same_time'>;
  prefix_sharing: Maybe<PrefixSharing, 'no_hashes'>;
}

/**
 * Every statistic of a trace.
 * @param requests in arrival order; lengths null where the trace gives text instead
 * @param blockSize Mooncake's tokens per block (null for formats without hashes)
 */
export function traceStats(
  requests: readonly {
    timestamp_ms: number;
    input_len?: number | null;
    output_len?: number | null;
    hash_ids?: readonly number[];
  }[],
  blockSize: number | null,
): TraceStats {
  const ts = requests.map((r) => r.timestamp_ms);
  const span = ts.length ? (ts[ts.length - 1] - ts[0]) / 1000 : 0;
  const lens = (k: 'input_len' | 'output_len') =>
    describe(requests.map((r) => r[k]).filter((v): v is number => typeof v === 'number'));
  const sharing = blockSize ? prefixSharing(requests, blockSize) : null;
  return {
    requests: requests.length,
    span_s: span,
    mean_rate_rps: span > 0 ? (requests.length - 1) / span : null,
    rate_over_time: rateOverTime(ts),
    input_tokens: lens('input_len'),
    output_tokens: lens('output_len'),
    inter_arrival_ms: describe(interArrivalGapsMs(ts)),
    burstiness_cv: interArrivalCv(ts),
    prefix_sharing: sharing ? { value: sharing, reason: null } : { value: null, reason: 'no_hashes' },
  };
}
