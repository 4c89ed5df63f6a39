/**
 * @module pipeline/merge-summary
 * The merged run's numbers from the shards' own counters and histograms, without reading a
 * record: counters add; latency statistics are read from the histograms added bucket for bucket
 * (`analysis/histogram`), never averaged; rates are over the global window, never a sum of shard
 * rates; requests in flight add up (Little's law over disjoint, interleaved requests); error
 * groups add up by class and message; the client's health is the sum of CPU and the worst
 * event-loop delay; the run's end is the first shard that did not complete.
 */
import { type ErrorGroup, TOP_ERRORS } from '../analysis/errors.js';
import { type Histogram, histogramStats } from '../analysis/histogram.js';
import { emptyStats } from '../analysis/stats.js';
import { SUMMARY_METRICS, type Summary, type SummaryMetric, summarize } from '../analysis/summary.js';
import type { T } from '../i18n/index.js';
import { OUTCOMES } from '../record/types.js';
import type { RunEnd } from '../report/run/report.js';
import type { ShardReport } from '../report/run/shard.js';
import type { LoadedShard } from './shard-files.js';

/**
 * The client's health over every shard: CPU adds up (the whole generator's CPU, in percent of
 * one core), and each event-loop delay percentile is the worst shard's, since a tail is blamed
 * on the client when any one of its processes lagged; the set-up before the window adds up.
 */
export function mergedClient(clients: readonly (Summary['client'] | undefined)[]): Summary['client'] {
  const known = clients.filter((c): c is Summary['client'] => !!c);
  const cpus = known.map((c) => c.cpu_percent);
  const delays = known.map((c) => c.event_loop_delay_ms);
  const worst = (k: 'p50' | 'p99' | 'max') => {
    const v = delays.map((d) => d?.[k] ?? null);
    return v.some((x) => x === null) ? null : Math.max(...(v as number[]));
  };
  return {
    cpu_percent:
      cpus.length && cpus.every((c) => c !== null) ? cpus.reduce((a, b) => a + (b as number), 0) : null,
    event_loop_delay_ms:
      delays.length && delays.every((d) => d !== null)
        ? { p50: worst('p50'), p99: worst('p99'), max: worst('max') }
        : null,
    // every shard's own set-up before the window, added up (absent unless every shard did one)
    ...(known.length && known.every((c) => c.prepared)
      ? {
          prepared: {
            connections: known.reduce((a, c) => a + (c.prepared?.connections ?? 0), 0),
            warm_requests: known.reduce((a, c) => a + (c.prepared?.warm_requests ?? 0), 0),
          },
        }
      : {}),
  };
}

/** The merged run's end: the first shard that did not complete says why. */
export function mergedEnd(ends: readonly (RunEnd | undefined)[]): RunEnd {
  const odd = ends.find(
    (e) => e && e.reason !== 'completed' && e.reason !== 'duration' && e.reason !== 'drain_timeout',
  );
  // A shard whose drain timed out ended as planned otherwise: the merged run says so when no shard ended oddly.
  const drained = ends.find((e) => e?.reason === 'drain_timeout');
  if (!odd && drained) return drained;
  return odd ?? ends.find((e) => e) ?? { reason: 'completed', interrupted: false };
}

/** The summary from the shards' counters and the merged histograms (no records read). */
export function summaryFromShards(
  shards: readonly LoadedShard[],
  histograms: Record<SummaryMetric, Histogram>,
  window: { start_ms: number; end_ms: number },
  slo: Summary['goodput']['slo'],
  t: T,
): Summary {
  const base = summarize([], { window, slo });
  const sum = (f: (s: ShardReport) => number) => shards.reduce((n, s) => n + f(s.report), 0);
  const requests = {
    planned: sum((s) => s.summary.requests.planned),
    measured: sum((s) => s.summary.requests.measured),
    succeeded: sum((s) => s.summary.requests.succeeded),
    failed: sum((s) => s.summary.requests.failed),
  };
  const outcomes = Object.fromEntries(
    OUTCOMES.map((o) => [o, sum((s) => s.summary.outcomes[o] ?? 0)]),
  ) as Summary['outcomes'];
  const finish: Record<string, number> = {};
  for (const s of shards)
    for (const [k, v] of Object.entries(s.report.summary.finish_reasons)) finish[k] = (finish[k] ?? 0) + v;
  const windowMs = window.end_ms - window.start_ms;
  const perSecond = (n: number) => (windowMs > 0 ? (n * 1000) / windowMs : null);
  const anyUsage = shards.some((s) => s.report.totals.any_usage);
  const completion = sum((s) => s.totals.completion_tokens);
  const prompt = sum((s) => s.totals.prompt_tokens);
  const good = sum((s) => s.totals.good);
  // The send rate over every shard's first attempts, on the wall clock.
  const sends = sum((s) => s.totals.first_sends);
  const firsts = shards.flatMap((s) =>
    s.report.totals.first_send_ms === null
      ? []
      : [s.report.started_at_unix_ms + s.report.totals.first_send_ms],
  );
  const lasts = shards.flatMap((s) =>
    s.report.totals.last_send_ms === null ? [] : [s.report.started_at_unix_ms + s.report.totals.last_send_ms],
  );
  const span = firsts.length ? Math.max(...lasts) - Math.min(...firsts) : 0;
  const stats = Object.fromEntries(SUMMARY_METRICS.map((k) => [k, histogramStats(histograms[k])])) as Record<
    SummaryMetric,
    Summary['ttft_ms']
  >;
  const warnings = [t('shard.merge.approx'), t('shard.merge.noDetail', { fields: 'metric_dialects' })];
  // The means' n: shards from before it was kept have none, and then the mean is unknown.
  const meanOf = (tokens: (s: ShardReport) => number, n: (s: ShardReport) => number | undefined) => {
    const counts = shards.map((s) => n(s.report));
    if (counts.some((c) => c === undefined)) return null;
    const total = (counts as number[]).reduce((a, b) => a + b, 0);
    return total > 0 ? sum(tokens) / total : null;
  };
  // Little's law: the shards' requests are disjoint and interleaved over one send span, so the
  // requests in flight add up, measured and predicted alike.
  const little = shards.map((s) => s.report.summary.littles_law);
  const addUp = (k: 'measured_in_flight' | 'predicted_in_flight') =>
    little.every((l) => l?.[k] != null) ? little.reduce((n, l) => n + (l[k] as number), 0) : null;
  const inFlight = addUp('measured_in_flight');
  const predicted = addUp('predicted_in_flight');
  for (const s of shards)
    for (const w of s.report.summary.warnings)
      warnings.push(t('shard.merge.shardWarning', { index: s.report.shard.index, warning: w }));
  const dialects = base.metric_dialects;
  return {
    ...base,
    ...stats,
    requests,
    outcomes,
    finish_reasons: finish,
    error_rate: requests.measured > 0 ? requests.failed / requests.measured : null,
    usage_missing: sum((s) => s.summary.usage_missing),
    output_throughput_tok_s: anyUsage ? perSecond(completion) : null,
    total_throughput_tok_s: anyUsage ? perSecond(completion + prompt) : null,
    request_throughput_rps: requests.measured > 0 ? perSecond(requests.succeeded) : null,
    achieved_rate_rps: sends >= 2 && span > 0 ? ((sends - 1) * 1000) / span : null,
    goodput: {
      rps: slo && requests.measured > 0 ? perSecond(good) : null,
      fraction: slo && requests.measured > 0 ? good / requests.measured : null,
      slo,
    },
    littles_law: {
      measured_in_flight: inFlight,
      predicted_in_flight: predicted,
      rel_gap:
        inFlight !== null && predicted !== null && inFlight > 0
          ? Math.abs(predicted - inFlight) / inFlight
          : null,
    },
    input_tokens: {
      mean: meanOf(
        (s) => s.totals.prompt_tokens,
        (s) => s.totals.prompt_counted,
      ),
    },
    output_tokens: {
      mean: meanOf(
        (s) => s.totals.completion_tokens,
        (s) => s.totals.completion_counted,
      ),
    },
    client: mergedClient(shards.map((s) => s.report.summary.client)),
    metric_dialects: {
      vllm_ttft_ms: { ...dialects.vllm_ttft_ms, ...emptyStats() },
      guidellm_tpot_ms: { ...dialects.guidellm_tpot_ms, ...emptyStats() },
      guidellm_itl_ms: { ...dialects.guidellm_itl_ms, ...emptyStats() },
    },
    errors: mergeErrors(shards.flatMap((s) => s.report.summary.errors)),
    // Needs every record's server times; a shard report carries only its summary.
    ttft_breakdown: undefined,
    warnings,
  };
}

/** Error groups of several shards as one list: same class and message add up; the top 5 kept. */
function mergeErrors(groups: readonly ErrorGroup[]): ErrorGroup[] {
  const by = new Map<string, ErrorGroup>();
  for (const g of groups) {
    const key = `${g.outcome}\u0000${g.http_status}\u0000${g.message}`;
    const have = by.get(key);
    if (have) have.count += g.count;
    else by.set(key, { ...g });
  }
  return [...by.values()]
    .sort((a, b) => b.count - a.count || a.message.localeCompare(b.message))
    .slice(0, TOP_ERRORS);
}
