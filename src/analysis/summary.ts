/**
 * @module analysis/summary
 * The run summary: one pure function from a run's records (plus what the runner measured about
 * itself) to the fixed-key {@link Summary} that reports, `--threshold` and scripts address.
 * Definitions are in `docs/metrics.md`. "No data" is `null`, never 0.
 */
import { type MessageKey, type MessageParams, type T, translator } from '../i18n/index.js';
import { OUTCOMES, type Outcome, type RequestRecord, SUCCESS_OUTCOMES } from '../record/types.js';
import { type ErrorGroup, errorGroups } from './errors.js';
import { LITTLES_LAW_MAX_GAP, type LittlesLaw, littlesLaw } from './littles-law.js';
import { isStreamed, type RequestMetrics, requestMetrics } from './request.js';
import { meetsSlo, type Slo } from './slo.js';
import { describe, describeWeighted, mean, type Stats } from './stats.js';
import { type TtftBreakdown, ttftBreakdown } from './ttft-breakdown.js';
import { attemptEndAt, type MeasurementWindow, measurementWindow, slotWaits } from './window.js';

/** Latency-like metrics that get a full {@link Stats} block in the summary (all in ms). */
export const SUMMARY_METRICS = [
  'ttft_ms',
  'ttfr_ms',
  'e2e_ms',
  'tpot_ms',
  'itl_ms',
  'max_gap_ms',
  'ttft_from_planned_ms',
  'e2e_from_planned_ms',
  'lateness_ms',
  'queue_ms',
] as const;
export type SummaryMetric = (typeof SUMMARY_METRICS)[number];

/** The client's own health over the run, measured by `runner/health` (same shape) and carried here. */
export interface ClientHealth {
  /** Event-loop delay percentiles from `monitorEventLoopDelay`, in ms; null when not measured. */
  event_loop_delay_ms: { p50: number | null; p99: number | null; max: number | null } | null;
  /** Process CPU time over wall time, in percent of one core (can exceed 100 with worker threads). */
  cpu_percent: number | null;
  /**
   * The intervals in which the event loop lagged (`runner/health`), on the run's clock, so a
   * stall is judged against the client's delay at its own time; absent in runs stored before it.
   */
  event_loop_lags?: readonly EventLoopLag[];
  /**
   * What the client did before the measured window to get ready for it (`Target.preconnect`),
   * none of it recorded; absent when nothing was done (a target without connections, runs
   * stored before it).
   */
  prepared?: ClientPrepared;
}

/** The client's set-up before a measured window, excluded from it (`client/http` preconnect). */
export interface ClientPrepared {
  /** Keep-alive connections opened with `GET /v1/models` (that got an answer). */
  connections: number;
  /** Synthetic requests run through the client's own code in-process (nothing sent to the server). */
  warm_requests: number;
}

/** One interval of the client's event loop with its worst delay, ms on the run's clock. */
export interface EventLoopLag {
  from_ms: number;
  to_ms: number;
  /** The worst event-loop delay inside [from_ms, to_ms], ms. */
  max_ms: number;
}

/** A metric as another tool defines it, with its definition spelled out. */
export interface DialectStats extends Stats {
  definition: string;
}

/** Context the runner passes to {@link summarize}. Every field is optional. */
export interface SummaryContext {
  /** The runner's recorded measurement window; default: `measurementWindow(records)`. */
  window?: MeasurementWindow | null;
  /** Open-loop target send rate (requests/s), to compare `achieved_rate_rps` with. */
  target_rate_rps?: number | null;
  /** `--max-concurrency` (or closed-loop `--concurrency`), used to find slot waits for `queue_ms`. */
  max_concurrency?: number | null;
  /**
   * A closed loop's users (`--concurrency` of a closed loop, each sending the next request the
   * moment one ends); null or absent for an open loop, sessions, or requests sent one by one
   * after a hook. Little's law predicts this many in flight (`analysis/littles-law`).
   */
  closed_loop_users?: number | null;
  /** Goodput objectives (`--slo`). */
  slo?: Slo | null;
  client?: ClientHealth | null;
  /** The language of `warnings` (default English, the language a stored summary keeps). */
  t?: T;
  /**
   * Called once with the samples behind each metric and the run's totals, so a shard's
   * mergeable histograms (`analysis/histogram`) are built from exactly the summary's values.
   */
  detail?: (d: SummaryDetail) => void;
}

/** What {@link summarize} adds up, for shards to carry and `merge` to sum. */
export interface SummaryDetail {
  samples: Readonly<Record<SummaryMetric, readonly number[]>>;
  /** The summary's warnings as catalogue keys, so a caller can say them in another language. */
  warnings: { key: MessageKey; params?: MessageParams }[];
  totals: {
    completion_tokens: number;
    prompt_tokens: number;
    /** Successful requests whose usage carried `completion_tokens` / `prompt_tokens` (the means' n). */
    completion_counted: number;
    prompt_counted: number;
    any_usage: boolean;
    /** Requests meeting the SLO (0 without one). */
    good: number;
    /** Measured first attempts that were sent, and the first and last of those sends (run-clock ms). */
    first_sends: number;
    first_send_ms: number | null;
    last_send_ms: number | null;
  };
}

/** The run summary. Keys are fixed (snake_case) because scripts and thresholds address them. */
export type Summary = {
  requests: { planned: number; measured: number; succeeded: number; failed: number };
  outcomes: Record<Outcome, number>;
  /** Final attempts of measured requests by finish_reason; `none` when there was none. */
  finish_reasons: Record<string, number>;
  /** failed / measured (null with nothing measured). */
  error_rate: number | null;
  /** Successful measured requests whose response carried no usage (or no completion_tokens). */
  usage_missing: number;
  /** Successful completion tokens / window (tokens/s). */
  output_throughput_tok_s: number | null;
  /** Successful prompt + completion tokens / window (tokens/s). */
  total_throughput_tok_s: number | null;
  /** Successful requests / window (requests/s). */
  request_throughput_rps: number | null;
  /** Measured first attempts' send rate, (sends − 1) / (last send − first send) (requests/s). */
  achieved_rate_rps: number | null;
  goodput: { rps: number | null; fraction: number | null; slo: Slo | null };
  littles_law: LittlesLaw;
  input_tokens: { mean: number | null };
  output_tokens: { mean: number | null };
  client: ClientHealth;
  metric_dialects: {
    vllm_ttft_ms: DialectStats;
    guidellm_tpot_ms: DialectStats;
    guidellm_itl_ms: DialectStats;
  };
  /**
   * The top error messages of the failed measured requests (final attempts), grouped by
   * outcome, HTTP status and normalised message, each with a hint (`analysis/errors`); at most
   * 5, by count then message. Empty when nothing failed.
   */
  errors: ErrorGroup[];
  /**
   * The TTFT split into the engine's queue, its prefill and the rest, from the server's own
   * timings (`analysis/ttft-breakdown`). Absent in summaries written before it existed and in
   * runs merged from shard reports.
   */
  ttft_breakdown?: TtftBreakdown;
  /** A staged run's figures per stage (`--stages`, `analysis/stage-summary`); absent otherwise. */
  stages?: StageSummary[];
  warnings: string[];
} & Record<SummaryMetric, Stats>;

/** One load stage's figures (`analysis/stage-summary`). */
export interface StageSummary {
  /** 0-based, in run order. */
  stage: number;
  /** Requests the stage planned (int(rate × duration)). */
  planned: number;
  /** Its measured requests that ended in a record (final attempts). */
  measured: number;
  succeeded: number;
  /**
   * Its measured first attempts' send rate, as the run's `achieved_rate_rps` (requests/s; null
   * with fewer than two sends). Absent in summaries written before it existed.
   */
  achieved_rate_rps?: number | null;
  ttft_ms: Stats;
  e2e_ms: Stats;
}

/** One planned request: its attempts in order, the first and the final (which decides its outcome). */
interface PlannedRequest {
  first: RequestRecord;
  final: RequestRecord;
  attempts: number;
}

/**
 * Group attempts by `planned_id`. The final attempt (highest `attempt`) decides the request's
 * outcome and latencies; the first attempt carries the planned time and the generator's lateness.
 */
export function groupAttempts(records: readonly RequestRecord[]): Map<string, PlannedRequest> {
  const groups = new Map<string, PlannedRequest>();
  for (const r of records) {
    const g = groups.get(r.planned_id);
    if (!g) {
      groups.set(r.planned_id, { first: r, final: r, attempts: 1 });
      continue;
    }
    g.attempts += 1;
    if (r.attempt < g.first.attempt) g.first = r;
    if (r.attempt > g.final.attempt) g.final = r;
  }
  return groups;
}

/** Successful measured final attempts of a run. */
export function measuredSuccesses(records: readonly RequestRecord[]): RequestRecord[] {
  const out: RequestRecord[] = [];
  for (const g of groupAttempts(records).values()) {
    if (g.final.phase === 'measure' && SUCCESS_OUTCOMES.includes(g.final.outcome)) out.push(g.final);
  }
  return out;
}

const DIALECT_DEFINITIONS = {
  vllm_ttft_ms:
    'vLLM bench serve TTFT: first chunk of any kind (role-only, reasoning) − sent; servelab ttft_ms counts content only',
  guidellm_tpot_ms: 'guidellm TPOT: (last token − sent) / completion_tokens, TTFT included',
  guidellm_itl_ms:
    'guidellm ITL: per-request (last token − first token) / (completion_tokens − 1), weighted by completion_tokens − 1; servelab tpot_ms is the unweighted distribution of the same values',
} as const;

/** Thresholds for the client-health warnings. */
const LOOP_DELAY_WARN_MS = 10;
const EN = translator('en');
const CPU_WARN_PERCENT = 90;

const perSecond = (count: number, windowMs: number | null): number | null =>
  windowMs === null || windowMs <= 0 ? null : (count * 1000) / windowMs;

/**
 * Summarise a run. Only `measure`-phase requests count toward metrics; `requests.planned`
 * counts every planned request (warm-up included). A request is counted once, by its final
 * attempt; successes are `ok` + `length`. Latency distributions use successful requests only;
 * `lateness_ms`/`queue_ms` use every measured request that was sent.
 * @param records every attempt's record of the run, any order
 * @param ctx window, target rate, concurrency cap, SLO and client health from the runner
 * @example
 * const s = summarize(records, { slo: parseSlo('ttft_ms=500'), window });
 * s.ttft_ms.p99; // ms, or null
 */
export function summarize(records: readonly RequestRecord[], ctx: SummaryContext = {}): Summary {
  const groups = groupAttempts(records);
  const measured = [...groups.values()].filter((g) => g.final.phase === 'measure');
  const window = ctx.window ?? measurementWindow(records) ?? null;
  const windowMs = window ? window.end_ms - window.start_ms : null;
  const waited = slotWaits(records, ctx.max_concurrency);
  const warnings: string[] = [];

  const outcomes = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
  const finishReasons: Record<string, number> = {};
  const samples = Object.fromEntries(SUMMARY_METRICS.map((k) => [k, [] as number[]])) as Record<
    SummaryMetric,
    number[]
  >;
  const dialects = { vllm_ttft_ms: [] as number[], guidellm_tpot_ms: [] as number[] };
  const guidellmItl: [number, number][] = [];
  let succeeded = 0;
  let usageMissing = 0;
  let good = 0;
  let completionTokens = 0;
  let promptTokens = 0;
  let anyUsage = false;
  const inputLens: number[] = [];
  const outputLens: number[] = [];
  const firstSends: number[] = [];
  let retries = 0;
  let cancelledUnsent = 0;
  let notStreamed = 0;
  const successes: RequestRecord[] = [];

  for (const g of measured) {
    const { first, final } = g;
    retries += g.attempts - 1;
    outcomes[final.outcome] += 1;
    const fr = final.finish_reason ?? 'none';
    finishReasons[fr] = (finishReasons[fr] ?? 0) + 1;
    if (final.outcome === 'cancelled' && final.sent_at_ms === null) cancelledUnsent += 1;

    // The generator's view: lateness and slot wait belong to the first attempt's send.
    if (first.sent_at_ms !== null) {
      firstSends.push(first.sent_at_ms);
      const fm = requestMetrics(first, { waited_for_slot: waited.has(first.id) });
      if (fm.lateness_ms !== undefined) samples.lateness_ms.push(fm.lateness_ms);
      if (fm.queue_ms !== undefined) samples.queue_ms.push(fm.queue_ms);
    }

    if (!SUCCESS_OUTCOMES.includes(final.outcome)) continue;
    succeeded += 1;
    successes.push(final);
    if (!isStreamed(final)) notStreamed += 1;
    const m: RequestMetrics = requestMetrics(final, { planned_at_ms: first.planned_at_ms });
    for (const k of [
      'ttft_ms',
      'ttfr_ms',
      'e2e_ms',
      'tpot_ms',
      'max_gap_ms',
      'ttft_from_planned_ms',
      'e2e_from_planned_ms',
    ] as const) {
      const v = m[k];
      if (v !== undefined) samples[k].push(v);
    }
    for (const gap of m.itl_ms) samples.itl_ms.push(gap);
    if (m.vllm_ttft_ms !== undefined) dialects.vllm_ttft_ms.push(m.vllm_ttft_ms);
    if (m.guidellm_tpot_ms !== undefined) dialects.guidellm_tpot_ms.push(m.guidellm_tpot_ms);
    if (m.guidellm_itl_ms !== undefined) guidellmItl.push([m.guidellm_itl_ms, m.guidellm_itl_weight]);

    const u = final.usage;
    if (u?.completion_tokens == null) usageMissing += 1;
    if (u) {
      if (u.completion_tokens != null) {
        anyUsage = true;
        completionTokens += u.completion_tokens;
        outputLens.push(u.completion_tokens);
      }
      if (u.prompt_tokens != null) {
        anyUsage = true;
        promptTokens += u.prompt_tokens;
        inputLens.push(u.prompt_tokens);
      }
    }
    if (ctx.slo && meetsSlo(final, m, ctx.slo)) good += 1;
  }

  const failed = measured.length - succeeded;
  const stats = Object.fromEntries(SUMMARY_METRICS.map((k) => [k, describe(samples[k])])) as Record<
    SummaryMetric,
    Stats
  >;

  // Little's law over every measured attempt (retries are arrivals at the server too).
  const intervals: [number, number][] = [];
  for (const r of records) {
    if (r.phase !== 'measure' || r.sent_at_ms === null) continue;
    intervals.push([r.sent_at_ms, attemptEndAt(r) as number]);
  }
  const little = littlesLaw(intervals, window, ctx.closed_loop_users ?? null);

  const achieved = sendRate(firstSends);
  const summary: Summary = {
    requests: { planned: groups.size, measured: measured.length, succeeded, failed },
    outcomes,
    finish_reasons: finishReasons,
    error_rate: measured.length > 0 ? failed / measured.length : null,
    usage_missing: usageMissing,
    ...stats,
    output_throughput_tok_s: anyUsage ? perSecond(completionTokens, windowMs) : null,
    total_throughput_tok_s: anyUsage ? perSecond(completionTokens + promptTokens, windowMs) : null,
    request_throughput_rps: measured.length > 0 ? perSecond(succeeded, windowMs) : null,
    achieved_rate_rps: achieved,
    goodput: {
      rps: ctx.slo && measured.length > 0 ? perSecond(good, windowMs) : null,
      fraction: ctx.slo && measured.length > 0 ? good / measured.length : null,
      slo: ctx.slo ?? null,
    },
    littles_law: little,
    input_tokens: { mean: mean(inputLens) },
    output_tokens: { mean: mean(outputLens) },
    client: ctx.client ?? { event_loop_delay_ms: null, cpu_percent: null },
    metric_dialects: {
      vllm_ttft_ms: { definition: DIALECT_DEFINITIONS.vllm_ttft_ms, ...describe(dialects.vllm_ttft_ms) },
      guidellm_tpot_ms: {
        definition: DIALECT_DEFINITIONS.guidellm_tpot_ms,
        ...describe(dialects.guidellm_tpot_ms),
      },
      guidellm_itl_ms: { definition: DIALECT_DEFINITIONS.guidellm_itl_ms, ...describeWeighted(guidellmItl) },
    },
    errors: errorGroups(measured.map((g) => g.final)),
    ttft_breakdown: ttftBreakdown(successes, ctx.t ?? EN),
    warnings,
  };

  // Warnings: things that make a number less trustworthy than it looks.
  const t = ctx.t ?? EN;
  const notes: SummaryDetail['warnings'] = [];
  const warn = (key: MessageKey, params?: MessageParams) => {
    notes.push({ key, params });
    warnings.push(t(key, params));
  };
  if (measured.length === 0) warn('run.warn.no_measured');
  else if (succeeded === 0) warn('run.warn.none_succeeded', { n: measured.length });
  const thin = (below: number) =>
    SUMMARY_METRICS.filter((k) => stats[k].n > 0 && stats[k].n < below)
      .map((k) => `${k} (n=${stats[k].n})`)
      .join(', ');
  if (thin(100)) warn('run.warn.thin_p99', { metrics: thin(100) });
  if (thin(20)) warn('run.warn.thin_p95', { metrics: thin(20) });
  if (usageMissing > 0) warn('run.warn.usage_missing', { n: usageMissing });
  if (notStreamed > 0) warn('run.warn.not_streamed', { n: notStreamed });
  if (outcomes.length > 0) warn('run.warn.truncated', { n: outcomes.length });
  if (retries > 0) warn('run.warn.retries', { n: retries });
  if (cancelledUnsent > 0) warn('run.warn.cancelled_unsent', { n: cancelledUnsent });
  if (window && windowMs !== null && windowMs <= 0) warn('run.warn.zero_window');
  const target = ctx.target_rate_rps;
  // An unbounded rate (`--rate inf`) has no target to fall short of.
  if (
    target != null &&
    target > 0 &&
    Number.isFinite(target) &&
    achieved !== null &&
    achieved < 0.95 * target
  ) {
    warn('run.warn.rate_behind', { achieved: achieved.toFixed(2), target });
  }
  const loopP99 = summary.client.event_loop_delay_ms?.p99 ?? null;
  if (loopP99 !== null && loopP99 > LOOP_DELAY_WARN_MS) {
    warn('run.warn.event_loop', { p99: loopP99.toFixed(1), max: LOOP_DELAY_WARN_MS });
  }
  const cpu = summary.client.cpu_percent;
  if (cpu !== null && cpu > CPU_WARN_PERCENT) {
    warn('run.warn.cpu', { cpu: cpu.toFixed(0), max: CPU_WARN_PERCENT });
  }
  if (little.judged && little.rel_gap !== null && little.rel_gap > LITTLES_LAW_MAX_GAP) {
    warn('run.warn.littles_law', {
      measured: little.measured_in_flight?.toFixed(2) ?? '—',
      predicted: little.predicted_in_flight?.toFixed(2) ?? '—',
      pct: (100 * little.rel_gap).toFixed(0),
    });
  }
  ctx.detail?.({
    samples,
    warnings: notes,
    totals: {
      completion_tokens: completionTokens,
      prompt_tokens: promptTokens,
      completion_counted: outputLens.length,
      prompt_counted: inputLens.length,
      any_usage: anyUsage,
      good,
      first_sends: firstSends.length,
      first_send_ms: firstSends.length ? firstSends.reduce((a, b) => Math.min(a, b)) : null,
      last_send_ms: firstSends.length ? firstSends.reduce((a, b) => Math.max(a, b)) : null,
    },
  });
  return summary;
}

/** (sends − 1) / (last send − first send), in requests/s; null with < 2 sends or no spread. */
export function sendRate(sends: readonly number[]): number | null {
  if (sends.length < 2) return null;
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const t of sends) {
    lo = Math.min(lo, t);
    hi = Math.max(hi, t);
  }
  return hi > lo ? ((sends.length - 1) * 1000) / (hi - lo) : null;
}
