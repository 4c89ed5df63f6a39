/**
 * @module pipeline/merge
 * `servelab merge`: N shard reports (`run --shard i/N`) into one run's `report.json`, which
 * `report`, `diagnose` and the dashboard read like any run. It refuses shards that are
 * missing, given twice, of another run (configuration, schedule, seed) or in another histogram
 * layout. Counters add; histograms add bucket for bucket (`analysis/histogram`); rates are
 * over the global window (the first shard's window start to the last one's end), never a sum of
 * shard rates; percentiles are read from the merged histograms, never averaged. `--exact`
 * recomputes every statistic from the shards' records instead, on one timeline.
 *
 * This module puts a merged run together (one timeline, the validity, the merge block) and
 * writes and stores it; reading and checking the shard files is `pipeline/shard-files`, the
 * numbers from the shards' counters and histograms `pipeline/merge-summary`.
 */
import { join } from 'node:path';
import type { ValidityReason } from '../analysis/diagnose/types.js';
import {
  addHistograms,
  addSecondBuckets,
  encodeHistogram,
  HISTOGRAM_LAYOUT,
  type Histogram,
  histogramOf,
  type SecondBucket,
} from '../analysis/histogram.js';
import { describe } from '../analysis/stats.js';
import { SUMMARY_METRICS, type Summary, type SummaryMetric, summarize } from '../analysis/summary.js';
import { validityReasons } from '../analysis/validity.js';
import type { T } from '../i18n/index.js';
import { type WriteRunOutputsOptions, writeRunOutputs, writeTextFile } from '../output/write.js';
import type { ScrapePoint } from '../record/series.js';
import { emptyRecord, type RequestRecord, shiftRecord } from '../record/types.js';
import { buildRunReport, RECORDS_FILE, type RunReport } from '../report/run/report.js';
import type { Store } from '../store/index.js';
import { mergedClient, mergedEnd, summaryFromShards } from './merge-summary.js';
import { type MonitoringResult, reportMonitoring } from './monitoring.js';
import { shardIndices } from './shard.js';
import { loadShards, missingShards, readShardRecords } from './shard-files.js';
import { storeFinishedRun } from './stored-run.js';

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
    // A closed loop split over shards is one loop of all their users.
    closed_loop_users:
      load.mode === 'closed' && shards.every((s) => s.report.shard.concurrency_cap != null)
        ? shards.reduce((n, s) => n + (s.report.shard.concurrency_cap as number), 0)
        : null,
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
        closed_loop_users: load.mode === 'closed' ? s.report.shard.concurrency_cap : null,
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
    await writeTextFile(
      path,
      records.map((r) => JSON.stringify(r)).join('\n') + (records.length ? '\n' : ''),
    );
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
  const id = storeFinishedRun(store, {
    row: {
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
    },
    records,
    // The server's series, as `measure` stores a run's: `diagnose ID` judges the run on them.
    series: report.series,
    summary: report.summary,
    status: report.end?.interrupted ? 'interrupted' : 'completed',
    window: report.window,
  });
  report.run_id = id;
  return id;
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
