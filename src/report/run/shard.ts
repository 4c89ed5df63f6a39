/**
 * @module report/run/shard
 * A shard's report (`report.shard-<i>-of-<N>.json`): a run's report with `kind: "shard"` (so
 * it is never read as a whole run), what ties it to the other shards (run id, configuration
 * and schedule hashes, seed), when it started against the planned start, and what `merge`
 * adds: the counters, the histograms in the one fixed layout (`analysis/histogram`), and the
 * per-second buckets keyed by epoch second.
 */
import {
  encodeHistogram,
  HISTOGRAM_LAYOUT,
  type HistogramLayout,
  histogramOf,
  type SecondBucket,
  secondBuckets,
} from '../../analysis/histogram.js';
import { SUMMARY_METRICS, type SummaryDetail, type SummaryMetric } from '../../analysis/summary.js';
import type { RequestRecord } from '../../record/types.js';
import type { RunReport } from './report.js';

export const SHARD_REPORT_SCHEMA_VERSION = 1;

/** What ties a shard to its run, and how it started. */
export interface ShardInfo {
  index: number;
  count: number;
  /** Shared by every shard of the run (`commonRunId`). */
  run_id: string;
  config_hash: string;
  /** The full (unsharded) schedule's hash. */
  schedule_hash: string;
  seed: number;
  /** Requests in the full schedule, and of those, this shard's. */
  planned_total: number;
  planned_here: number;
  /** This shard's part of the concurrency cap (closed loop: its workers), null for none. */
  concurrency_cap: number | null;
  planned_start_unix_ms: number | null;
  /** When this shard sent its first measured request (null: it sent none). */
  first_dispatch_unix_ms: number | null;
  /**
   * When the shard actually started its schedule: the first dispatch less that request's
   * planned offset in the schedule (so shards whose first requests are planned at different
   * offsets compare), null when it sent nothing. `merge` warns when these spread > 50 ms.
   */
  actual_start_unix_ms: number | null;
  /** How late the measured window opened (ms). */
  late_ms: number | null;
  late_policy: 'fail' | 'truncate';
  host: string;
}

export interface ShardReport extends Omit<RunReport, 'kind' | 'records_file' | 'schema_version'> {
  schema_version: typeof SHARD_REPORT_SCHEMA_VERSION;
  kind: 'shard';
  records_file: string;
  shard: ShardInfo;
  /** What summarize() added up, for `merge` to sum. */
  totals: SummaryDetail['totals'];
  histograms: {
    layout: HistogramLayout;
    /** Values outside the layout's range, clamped into it. */
    clamped: Partial<Record<SummaryMetric, number>>;
    /** HdrHistogram compressed base64, one per summary metric (lateness_ms among them). */
    metrics: Record<SummaryMetric, string>;
  };
  per_second: Record<string, SecondBucket>;
}

/** The shard's report from its run's report, records and the summary's detail. */
export function buildShardReport(
  report: RunReport,
  records: readonly RequestRecord[],
  detail: SummaryDetail,
  shard: Omit<ShardInfo, 'first_dispatch_unix_ms' | 'actual_start_unix_ms'>,
  recordsFile: string,
): ShardReport {
  const { kind: _kind, records_file: _file, schema_version: _v, ...rest } = report;
  const metrics = {} as Record<SummaryMetric, string>;
  const clamped: Partial<Record<SummaryMetric, number>> = {};
  for (const k of SUMMARY_METRICS) {
    const h = histogramOf(detail.samples[k]);
    metrics[k] = encodeHistogram(h.histogram);
    if (h.clamped) clamped[k] = h.clamped;
  }
  const first = detail.totals.first_send_ms;
  const firstRec =
    first === null
      ? undefined
      : records.find((r) => r.phase === 'measure' && r.attempt === 1 && r.sent_at_ms === first);
  const offset = firstRec?.planned_at_ms != null ? firstRec.planned_at_ms - report.window.start_ms : null;
  return {
    ...rest,
    schema_version: SHARD_REPORT_SCHEMA_VERSION,
    kind: 'shard',
    records_file: recordsFile,
    shard: {
      ...shard,
      first_dispatch_unix_ms: first === null ? null : report.started_at_unix_ms + first,
      actual_start_unix_ms:
        first === null || offset === null ? null : report.started_at_unix_ms + first - offset,
    },
    totals: detail.totals,
    histograms: { layout: HISTOGRAM_LAYOUT, clamped, metrics },
    per_second: secondBuckets(records, report.started_at_unix_ms),
  };
}
