/**
 * @module pipeline/merge
 * `servelab merge`: N shard reports (`run --shard i/N`) into one run's `report.json`, which
 * `report`, `diagnose` and the dashboard read like any run. It refuses shards that are
 * missing, given twice, of another run (configuration, schedule, seed) or in another histogram
 * layout. Counters add; histograms add bucket for bucket (`analysis/histogram`); rates are
 * over the global window (the first shard's window start to the last one's end), never a sum of
 * shard rates; percentiles are read from the merged histograms, never averaged. `--exact`
 * recomputes every statistic from the shards' records instead, on one timeline.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ValidityReason } from '../analysis/diagnose/types.js';
import { type ErrorGroup, TOP_ERRORS } from '../analysis/errors.js';
import {
  addHistograms,
  addSecondBuckets,
  decodeHistogram,
  encodeHistogram,
  HISTOGRAM_LAYOUT,
  type Histogram,
  hasLayout,
  histogramOf,
  histogramStats,
  type SecondBucket,
} from '../analysis/histogram.js';
import { describe, emptyStats } from '../analysis/stats.js';
import { SUMMARY_METRICS, type Summary, type SummaryMetric, summarize } from '../analysis/summary.js';
import { validityReasons } from '../analysis/validity.js';
import { type Problem, UsageError } from '../core/errors.js';
import type { T } from '../core/i18n/index.js';
import { type WriteRunOutputsOptions, writeRunOutputs } from '../output/write.js';
import type { ScrapePoint } from '../record/series.js';
import { emptyRecord, OUTCOMES, type RequestRecord, shiftRecord } from '../record/types.js';
import { buildRunReport, RECORDS_FILE, type RunEnd, type RunReport } from '../report/run/report.js';
import type { ShardReport } from '../report/run/shard.js';
import type { Store } from '../store/index.js';
import { type MonitoringResult, reportMonitoring } from './monitoring.js';
import { shardIndices } from './shard.js';

/** The spread of first dispatches above which `merge` warns (ms). */
export const START_SPREAD_WARN_MS = 50;

export interface MergeOptions {
  expect: number;
  files: readonly string[];
  /** Where report.json (and, with `exact`, requests.jsonl) go; null: write nothing. */
  out: string | null;
  exact?: boolean;
  allowMissing?: boolean;
  /** `vllm.json` and its options, as `run --format vllm` writes them (needs `exact`: records). */
  write?: Omit<WriteRunOutputsOptions, 'records'>;
  /**
   * One monitor of the shared server over every shard (`run --workers`: the parent scraped it
   * while its children ran, on a clock whose origin is `originUnixMs`). The merged run then has a
   * run's server-side view and is judged on it (the token counter against every shard's tokens).
   */
  monitoring?: { result: MonitoringResult; originUnixMs: number } | null;
}

/** What `report.json` says about the merge itself. */
export interface MergeInfo {
  expect: number;
  exact: boolean;
  run_id: string;
  shards: {
    index: number;
    file: string;
    host: string;
    started_at_unix_ms: number;
    planned_start_unix_ms: number | null;
    first_dispatch_unix_ms: number | null;
    actual_start_unix_ms: number | null;
    late_ms: number | null;
    window_unix_ms: { start: number; end: number };
    valid: boolean | null;
    client: Summary['client'];
  }[];
  missing: number[];
  /** Planned requests of missing shards (`--allow-missing`), counted as failed. */
  lost: number;
  /** Where every shard's window overlaps (run-clock ms of the merged report), null if nowhere. */
  overlap_window: { start_ms: number; end_ms: number } | null;
  /** Latest actual start − earliest actual start over the shards (ms). */
  start_spread_ms: number | null;
  histograms: { layout: typeof HISTOGRAM_LAYOUT; metrics: Record<SummaryMetric, string> };
  per_second: Record<string, SecondBucket>;
}

export type MergedReport = RunReport & { merge: MergeInfo };

interface LoadedShard {
  file: string;
  report: ShardReport;
  histograms: Record<SummaryMetric, Histogram>;
}

/** Read and check the shard files: every problem at once, each with a hint. */
export async function loadShards(opts: MergeOptions, t: T): Promise<LoadedShard[]> {
  const problems: Problem[] = [];
  if (!(Number.isInteger(opts.expect) && opts.expect >= 1))
    problems.push({
      path: '--expect',
      message: t('shard.merge.expect', { got: String(opts.expect) }),
      hint: t('shard.merge.expectHint'),
    });
  if (opts.files.length === 0)
    problems.push({ message: t('shard.merge.noFiles'), hint: t('shard.merge.noFilesHint') });
  const shards: LoadedShard[] = [];
  for (const file of opts.files) {
    let value: unknown;
    try {
      value = JSON.parse(await readFile(file, 'utf8'));
    } catch (err) {
      const why = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      problems.push({ message: t('shard.merge.read', { file, why }), hint: t('shard.merge.notShardHint') });
      continue;
    }
    const why = shardReportProblem(value);
    if (why) {
      problems.push({
        message: t('shard.merge.notShard', { file, why }),
        hint: t('shard.merge.notShardHint'),
      });
      continue;
    }
    const report = value as ShardReport;
    if (JSON.stringify(report.histograms.layout) !== JSON.stringify(HISTOGRAM_LAYOUT)) {
      problems.push({
        message: t('shard.merge.layout', { file, got: JSON.stringify(report.histograms.layout) }),
        hint: t('shard.merge.layoutHint'),
      });
      continue;
    }
    const histograms = {} as Record<SummaryMetric, Histogram>;
    let bad = false;
    for (const k of SUMMARY_METRICS) {
      try {
        histograms[k] = decodeHistogram(report.histograms.metrics[k]);
        if (!hasLayout(histograms[k])) bad = true;
      } catch {
        bad = true;
      }
    }
    if (bad) {
      problems.push({
        message: t('shard.merge.layout', { file, got: 'undecodable' }),
        hint: t('shard.merge.layoutHint'),
      });
      continue;
    }
    shards.push({ file, report, histograms });
  }
  const byIndex = new Map<number, LoadedShard[]>();
  for (const s of shards) {
    const sh = s.report.shard;
    if (sh.count !== opts.expect)
      problems.push({
        message: t('shard.merge.count', {
          file: s.file,
          index: sh.index,
          count: sh.count,
          expect: opts.expect,
        }),
        hint: t('shard.merge.countHint'),
      });
    byIndex.set(sh.index, [...(byIndex.get(sh.index) ?? []), s]);
  }
  for (const [index, list] of [...byIndex].sort(([a], [b]) => a - b))
    if (list.length > 1)
      problems.push({
        message: t('shard.merge.duplicate', { index, files: list.map((s) => s.file).join(', ') }),
        hint: t('shard.merge.duplicateHint'),
      });
  const first = shards[0];
  if (first)
    for (const s of shards.slice(1))
      for (const field of ['run_id', 'config_hash', 'schedule_hash', 'seed', 'planned_total'] as const) {
        const want = first.report.shard[field];
        const got = s.report.shard[field];
        if (got !== want)
          problems.push({
            message: t('shard.merge.mismatch', {
              file: s.file,
              field,
              got: String(got),
              first: first.file,
              want: String(want),
            }),
            hint: t('shard.merge.mismatchHint'),
          });
      }
  const missing = missingShards(shards, opts.expect);
  if (missing.length && !opts.allowMissing && Number.isInteger(opts.expect) && shards.length)
    problems.push({
      message: t('shard.merge.missing', { missing: missing.join(', '), expect: opts.expect }),
      hint: t('shard.merge.missingHint'),
    });
  if (problems.length) throw new UsageError(problems);
  return [...shards].sort((a, b) => a.report.shard.index - b.report.shard.index);
}

function missingShards(shards: readonly LoadedShard[], expect: number): number[] {
  const have = new Set(shards.map((s) => s.report.shard.index));
  const out: number[] = [];
  for (let i = 0; i < expect; i++) if (!have.has(i)) out.push(i);
  return out;
}

/** Why a parsed value is not a shard report this servelab reads, or null. */
export function shardReportProblem(v: unknown): string | null {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'not a JSON object';
  const r = v as Partial<ShardReport>;
  if (r.kind !== 'shard') return `kind ${JSON.stringify(r.kind)}, not "shard"`;
  if (r.schema_version !== 1)
    return `schema_version ${JSON.stringify(r.schema_version)}; this servelab reads 1`;
  if (!r.shard || typeof r.shard.index !== 'number' || typeof r.shard.count !== 'number')
    return 'no shard block';
  if (!r.histograms?.metrics || !r.totals || !r.summary?.requests) return 'no histograms, totals or summary';
  return null;
}

/** Merge loaded shards (any order gives the same report) and write it under `opts.out`. */
export async function mergeShards(
  opts: MergeOptions,
  t: T,
): Promise<{ report: MergedReport; records: RequestRecord[] | null; files: string[] }> {
  const shards = await loadShards(opts, t);
  const missing = missingShards(shards, opts.expect);
  const first = shards[0].report;
  const lost = missing.reduce(
    (n, i) => n + shardIndices(first.shard.planned_total, i, opts.expect).length,
    0,
  );
  // One timeline: the earliest shard clock's origin; each shard's window placed on it.
  const origin = Math.min(...shards.map((s) => s.report.started_at_unix_ms));
  const win = shards.map((s) => ({
    start: s.report.started_at_unix_ms + s.report.window.start_ms,
    end: s.report.started_at_unix_ms + s.report.window.end_ms,
  }));
  const window = {
    start_ms: Math.min(...win.map((w) => w.start)) - origin,
    end_ms: Math.max(...win.map((w) => w.end)) - origin,
  };
  const overlapStart = Math.max(...win.map((w) => w.start));
  const overlapEnd = Math.min(...win.map((w) => w.end));
  const dispatches = shards
    .map((s) => s.report.shard.actual_start_unix_ms)
    .filter((x): x is number => x !== null);
  const spread = dispatches.length ? Math.max(...dispatches) - Math.min(...dispatches) : null;
  const load = (first.config.load ?? {}) as { mode?: string; rateRps?: number | null };
  const slo = (first.config.slo ?? null) as Summary['goodput']['slo'];
  const ctx = {
    window,
    target_rate_rps: load.mode === 'open' ? (load.rateRps ?? null) : null,
    slo,
  };

  let summary: Summary;
  let histograms: Record<SummaryMetric, Histogram>;
  let records: RequestRecord[] | null = null;
  if (opts.exact) {
    records = [];
    const perShard: Record<SummaryMetric, readonly number[]>[] = [];
    for (const s of shards) {
      const own = await readShardRecords(s, t);
      // The histograms from each shard's own timeline (the values it recorded); the summary
      // from every record shifted onto the merged one.
      summarize(own, {
        window: s.report.window,
        max_concurrency: s.report.shard.concurrency_cap,
        detail: (d) => perShard.push(d.samples),
      });
      const shift = s.report.started_at_unix_ms - origin;
      for (const r of own) records.push(shift === 0 ? r : shiftRecord(r, shift));
    }
    // One record per planned request, as a run writes: the missing shards' as `lost`.
    for (const i of missing) records.push(...lostRecords(first.shard.planned_total, i, opts.expect));
    summary = summarize(records, ctx);
    // A slot wait is a wait for this shard's own slots: queue_ms is each shard's, put together.
    summary.queue_ms = describe(perShard.flatMap((p) => p.queue_ms));
    histograms = Object.fromEntries(
      SUMMARY_METRICS.map((k) => [k, histogramOf(perShard.flatMap((p) => p[k])).histogram]),
    ) as Record<SummaryMetric, Histogram>;
  } else {
    histograms = Object.fromEntries(
      SUMMARY_METRICS.map((k) => [k, addHistograms(shards.map((s) => s.histograms[k]))]),
    ) as Record<SummaryMetric, Histogram>;
    summary = summaryFromShards(shards, histograms, window, slo, t);
  }
  if (lost > 0) {
    if (!records) {
      summary.requests.planned += lost;
      summary.requests.measured += lost;
      summary.requests.failed += lost;
      summary.outcomes.lost += lost;
      summary.error_rate = summary.requests.failed / summary.requests.measured;
    }
    summary.warnings.push(t('shard.merge.lost', { n: lost, shards: missing.join(', ') }));
  }
  summary.client = mergedClient(shards.map((s) => s.report.summary.client));
  if (spread !== null && spread > START_SPREAD_WARN_MS)
    summary.warnings.push(t('shard.merge.spread', { spread_ms: Math.round(spread) }));

  const report = buildRunReport({
    config: first.config,
    environment: {
      ...first.environment,
      hostname: [...new Set(shards.map((s) => s.report.shard.host))].join(','),
    },
    window,
    started_at_unix_ms: origin,
    summary,
    end: mergedEnd(shards.map((s) => s.report.end)),
  }) as MergedReport;
  const series = opts.monitoring ? attachMonitoring(report, opts.monitoring, origin) : undefined;
  const reasons: ValidityReason[] = validityReasons({
    id: first.shard.run_id,
    label: 'merged',
    config: first.config,
    environment: report.environment,
    summary,
    records: records ?? [],
    window,
    ...(series ? { series } : {}),
  });
  for (const s of shards)
    for (const r of s.report.validity?.reasons ?? [])
      if (!reasons.some((x) => x.code === r.code))
        reasons.push({
          ...r,
          message: t('shard.merge.invalid', { index: s.report.shard.index, reason: r.message }),
        });
  if (missing.length)
    reasons.push({
      code: 'shards_missing',
      run: first.shard.run_id,
      message: t('shard.merge.missing', { missing: missing.join(', '), expect: opts.expect }),
    });
  report.validity = { valid: reasons.length === 0, reasons };
  report.merge = {
    expect: opts.expect,
    exact: !!opts.exact,
    run_id: first.shard.run_id,
    shards: shards.map((s, i) => ({
      index: s.report.shard.index,
      file: s.file,
      host: s.report.shard.host,
      started_at_unix_ms: s.report.started_at_unix_ms,
      planned_start_unix_ms: s.report.shard.planned_start_unix_ms,
      first_dispatch_unix_ms: s.report.shard.first_dispatch_unix_ms,
      actual_start_unix_ms: s.report.shard.actual_start_unix_ms,
      late_ms: s.report.shard.late_ms,
      window_unix_ms: win[i],
      valid: s.report.validity?.valid ?? null,
      client: s.report.summary.client,
    })),
    missing,
    lost,
    overlap_window:
      overlapEnd > overlapStart ? { start_ms: overlapStart - origin, end_ms: overlapEnd - origin } : null,
    start_spread_ms: spread,
    histograms: {
      layout: HISTOGRAM_LAYOUT,
      metrics: Object.fromEntries(SUMMARY_METRICS.map((k) => [k, encodeHistogram(histograms[k])])) as Record<
        SummaryMetric,
        string
      >,
    },
    per_second: addSecondBuckets(shards.map((s) => s.report.per_second)),
  };
  const files = await writeMerged(opts.out, report, records, opts.write);
  return { report, records, files };
}

/**
 * Write a merged run like a run's `--out`: report.json, summary.csv, `vllm.json` when asked for,
 * and requests.jsonl when the records are known (`--exact`). `out` null writes only a
 * `vllm.json` with a file of its own.
 * @returns the paths written
 */
export async function writeMerged(
  out: string | null,
  report: MergedReport,
  records: readonly RequestRecord[] | null,
  write: Omit<WriteRunOutputsOptions, 'records'> = {},
): Promise<string[]> {
  const vllm = !!write.vllm && records !== null;
  if (!out && !(vllm && write.vllmFile)) return [];
  const files = await writeRunOutputs(out, report, { ...write, vllm, records: records ?? [] });
  if (out && records) {
    const path = join(out, RECORDS_FILE);
    await writeFile(path, records.map((r) => JSON.stringify(r)).join('\n') + (records.length ? '\n' : ''));
    files.push(path);
  }
  return files;
}

/**
 * Record a merged run in the store as `measure` records a run (its records, the server's
 * series, summary, monitoring, validity, window), so `runs`, `report` and `diagnose` find it by id; sets `report.run_id`.
 * @returns the store's id for the run
 */
export function storeMerged(
  store: Store,
  report: MergedReport,
  records: readonly RequestRecord[],
  label: string | null,
): string {
  const m = report.merge;
  const run = store.createRun({
    kind: 'run',
    label,
    startedAtUnixMs: report.started_at_unix_ms,
    config: report.config as never,
    environment: report.environment as never,
    record: {
      monitoring: (report.monitoring ?? null) as never,
      validity: report.validity as never,
      merge: { run_id: m.run_id, expect: m.expect, exact: m.exact, missing: m.missing, lost: m.lost },
    },
  });
  for (const r of records) store.appendRecord(run.id, r);
  // The server's series, as `measure` stores a run's: `diagnose ID` judges the run on them.
  if (report.series?.length) store.addSeries(run.id, report.series);
  store.finishRun(
    run.id,
    report.summary as never,
    report.end?.interrupted ? 'interrupted' : 'completed',
    report.window as never,
  );
  report.run_id = run.id;
  return run.id;
}

/**
 * Put one monitor's view of the shared server on the merged run's timeline (`origin`): its
 * series and summaries, as `measure` gives a run. Returns the shifted series.
 */
function attachMonitoring(
  report: MergedReport,
  m: { result: MonitoringResult; originUnixMs: number },
  origin: number,
): ScrapePoint[] {
  const shift = m.originUnixMs - origin;
  const points = m.result.points.map((p) => (shift === 0 ? p : { ...p, t_ms: p.t_ms + shift }));
  const block = reportMonitoring(m.result, points, report.window);
  if (block) report.monitoring = block;
  if (points.length) report.series = points;
  return points;
}

/** The error of a request whose shard never reported. */
export const LOST_SHARD = 'shard missing';

/** Records for the planned requests of missing shard `index` of `count`: outcome `lost`. */
export function lostRecords(total: number, index: number, count: number): RequestRecord[] {
  return shardIndices(total, index, count).map((k) => {
    const rec = emptyRecord({
      id: `lost-${k}`,
      planned_id: `lost-${k}`,
      attempt: 1,
      phase: 'measure',
      index: k,
    });
    rec.outcome = 'lost';
    rec.error = `${LOST_SHARD}: ${index}/${count}`;
    return rec;
  });
}

/**
 * The client's health over every shard: CPU adds up (the whole generator's CPU, in percent of
 * one core), and each event-loop delay percentile is the worst shard's, since a tail is blamed
 * on the client when any one of its processes lagged.
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
  };
}

async function readShardRecords(s: LoadedShard, t: T): Promise<RequestRecord[]> {
  const path = join(dirname(s.file), s.report.records_file);
  try {
    const text = await readFile(path, 'utf8');
    return text
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as RequestRecord);
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new UsageError([
      { message: t('shard.merge.records', { file: s.file, why }), hint: t('shard.merge.recordsHint') },
    ]);
  }
}

/** The merged run's end: the first shard that did not complete says why. */
function mergedEnd(ends: readonly (RunEnd | undefined)[]): RunEnd {
  const odd = ends.find((e) => e && e.reason !== 'completed' && e.reason !== 'duration');
  return odd ?? ends.find((e) => e) ?? { reason: 'completed', interrupted: false };
}

/** The summary from the shards' counters and the merged histograms (no records read). */
function summaryFromShards(
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
