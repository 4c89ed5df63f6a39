/**
 * @module dashboard/live
 * The live view of a run in progress: {@link LiveTracker} folds the records and series points
 * that appear in the store into running statistics (no re-read of what it has seen), and
 * {@link streamLive} polls the store (WAL: it reads while the run writes) every
 * {@link LIVE_POLL_MS} and pushes server-sent events until the run leaves `running`.
 *
 * Events (`event:` name, `data:` JSON):
 * - `update` — {@link LiveUpdate}: sent on connect and after every poll that found something new;
 * - `end` — {@link LiveUpdate} plus the final `summary`: sent once when the run is no longer
 *   `running` (completed, failed, interrupted), after which the stream closes.
 */
import type { ServerResponse } from 'node:http';
import type { EChartsOption } from 'echarts';
import type { LoadedRun } from '../analysis/loaded-run.js';
import { e2eMs, ttftMs } from '../analysis/request.js';
import { insertSorted, percentile } from '../analysis/stats.js';
import { summarize } from '../analysis/summary.js';
import { attemptEndAt } from '../analysis/window.js';
import { type T, translator } from '../i18n/index.js';
import { OUTCOMES, type Outcome, type RequestRecord, SUCCESS_OUTCOMES } from '../record/types.js';
import { cdfOption, timelineOption } from '../report/charts.js';
import { gpuPanelOption } from '../report/server-charts.js';
import type { Clock } from '../runtime/clock.js';
import type { RunRow, SeriesSample, Store } from '../store/index.js';
import { isSummary, runLabel, runSummary } from './store-runs.js';

/** How often a live stream polls the store, ms. */
export const LIVE_POLL_MS = 500;
/** A comment line keeps idle proxies and the browser from timing the stream out, ms. */
const HEARTBEAT_MS = 15_000;

/** p50/p95/p99 of one latency over the successful measured attempts seen so far, ms. */
export interface LivePercentiles {
  n: number;
  p50: number | null;
  p95: number | null;
  p99: number | null;
}

/**
 * Statistics over the attempts committed so far. Counted per attempt (a retried request counts
 * each attempt); the final `summary` of the `end` event counts planned requests.
 */
export interface LiveStats {
  /** Committed attempt records (warm-up included). */
  records: number;
  warmup: number;
  /** Measured attempts that succeeded (`ok` or `length`). */
  succeeded: number;
  /** Measured attempts that did not. */
  failed: number;
  outcomes: Record<Outcome, number>;
  /** failed / (succeeded + failed); null with no measured attempt. */
  error_rate: number | null;
  ttft_ms: LivePercentiles;
  e2e_ms: LivePercentiles;
  /** Completion tokens of successful measured attempts (usage.completion_tokens). */
  output_tokens: number;
  /** First measured send to last measured end, run-clock ms; null before any. */
  span_ms: { start_ms: number; end_ms: number } | null;
  /** output_tokens per second over {@link span_ms}; null with an empty span. */
  output_tok_s: number | null;
  /** Successful measured attempts per second over {@link span_ms}. */
  request_rps: number | null;
}

/** The live charts: the report's own builders over the records and series so far (null = not drawable yet). */
export interface LiveCharts {
  timeline: EChartsOption | null;
  ttft_cdf: EChartsOption | null;
  /** The report's GPU panels ("GPU utilisation (%)", "GPU memory (GiB)"); null while not scraped. */
  gpu_util: EChartsOption | null;
  gpu_memory: EChartsOption | null;
}

/** The chart builders read only records, series and label; they need a summary only for the type. */
const NO_SUMMARY = summarize([]);

/** One live event's payload. */
export interface LiveUpdate {
  run_id: string;
  status: string;
  /** Committed attempt records so far. */
  records: number;
  /** Records that arrived since the previous event. */
  new_records: number;
  stats: LiveStats;
  /**
   * Requests in flight: the server's `running`/`waiting` gauges (latest scraped value) when
   * scraped. The client's own count of open requests is not in the store (records are written
   * when a request ends), so `client_recent` is the in-flight count at the latest committed end,
   * from committed records only: a lower bound near the live edge.
   */
  in_flight: { server_running: number | null; server_waiting: number | null; client_recent: number | null };
  /**
   * The GPU's latest scraped readings: utilisation (%, the busy share of the sample period before
   * the reading) and memory in use (GiB, summed over GPUs); null while not scraped (no DCGM gauges
   * on the target and no local nvidia-smi).
   */
  gpu: { util_pct: number | null; memory_gib: number | null };
  /** Series points that arrived since the previous event (run-clock ms). */
  series: SeriesSample[];
  /** The report's timeline and TTFT CDF charts over everything that has arrived (echarts options). */
  charts: LiveCharts;
  /** Only on `end`: the run's final summary (stored, or computed when none was stored). */
  summary?: unknown;
}

/** One `metric_series` row as read by the live cursor. */
interface SeriesRow {
  rid: number;
  source: string;
  name: string;
  labels: string;
  t_ms: number;
  value: number;
}

const pcts = (sorted: readonly number[]): LivePercentiles => ({
  n: sorted.length,
  p50: percentile(sorted, 50),
  p95: percentile(sorted, 95),
  p99: percentile(sorted, 99),
});

/**
 * A record cut down to what the live charts read: the chunk arrays are dropped except up to the
 * first tool-call chunk (`firstOutputAt` looks for it), so a long run's live view stays small.
 */
function slim(r: RequestRecord): RequestRecord {
  const t = r.chunk_kinds.indexOf('t');
  return t < 0
    ? { ...r, chunk_times_ms: [], chunk_kinds: [] }
    : { ...r, chunk_times_ms: r.chunk_times_ms.slice(0, t + 1), chunk_kinds: r.chunk_kinds.slice(0, t + 1) };
}

/** Running statistics over a run's records and series as they are committed. */
export class LiveTracker {
  private records = 0;
  private warmup = 0;
  private succeeded = 0;
  private failed = 0;
  private readonly outcomes = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
  private readonly ttft: number[] = [];
  private readonly e2e: number[] = [];
  private outputTokens = 0;
  private spanStart = Number.POSITIVE_INFINITY;
  private spanEnd = Number.NEGATIVE_INFINITY;
  private readonly kept: RequestRecord[] = [];
  private readonly series: SeriesSample[] = [];
  private readonly latest = new Map<string, { t_ms: number; value: number }>();

  /** Fold one committed record in. */
  addRecord(r: RequestRecord): void {
    this.records += 1;
    this.kept.push(slim(r));
    if (r.phase === 'warmup') {
      this.warmup += 1;
      return;
    }
    this.outcomes[r.outcome] += 1;
    const end = attemptEndAt(r);
    if (r.sent_at_ms !== null) this.spanStart = Math.min(this.spanStart, r.sent_at_ms);
    if (end !== null) this.spanEnd = Math.max(this.spanEnd, end);
    if (!SUCCESS_OUTCOMES.includes(r.outcome)) {
      this.failed += 1;
      return;
    }
    this.succeeded += 1;
    this.outputTokens += r.usage?.completion_tokens ?? 0;
    // The summary's own per-request definitions.
    const ttft = ttftMs(r);
    const e2e = e2eMs(r);
    if (ttft !== undefined) insertSorted(this.ttft, ttft);
    if (e2e !== undefined) insertSorted(this.e2e, e2e);
  }

  /** Fold scraped points in (they keep their run-clock times). */
  addSeries(points: readonly SeriesSample[]): void {
    for (const p of points) {
      this.series.push(p);
      const cur = this.latest.get(p.name);
      if (!cur || p.t_ms >= cur.t_ms) this.latest.set(p.name, { t_ms: p.t_ms, value: p.value });
    }
  }

  /** Statistics so far. */
  stats(): LiveStats {
    const measured = this.succeeded + this.failed;
    const span = this.spanEnd > this.spanStart ? { start_ms: this.spanStart, end_ms: this.spanEnd } : null;
    const perS = (x: number) => (span ? (x * 1000) / (span.end_ms - span.start_ms) : null);
    return {
      records: this.records,
      warmup: this.warmup,
      succeeded: this.succeeded,
      failed: this.failed,
      outcomes: { ...this.outcomes },
      error_rate: measured ? this.failed / measured : null,
      ttft_ms: pcts(this.ttft),
      e2e_ms: pcts(this.e2e),
      output_tokens: this.outputTokens,
      span_ms: span,
      output_tok_s: perS(this.outputTokens),
      request_rps: perS(this.succeeded),
    };
  }

  /** Latest scraped value of a vocabulary series (`running`, `waiting`, …), or null. */
  latestValue(name: string): number | null {
    return this.latest.get(name)?.value ?? null;
  }

  /** Committed requests that were in flight at the latest committed end (see {@link LiveUpdate.in_flight}). */
  clientInFlightAtEdge(): number | null {
    if (this.kept.length === 0) return null;
    let edge = Number.NEGATIVE_INFINITY;
    for (const r of this.kept) edge = Math.max(edge, attemptEndAt(r) ?? edge);
    let n = 0;
    for (const r of this.kept) {
      const end = attemptEndAt(r);
      if (r.sent_at_ms !== null && end !== null && r.sent_at_ms <= edge && end >= edge) n += 1;
    }
    return n;
  }

  /** The report's timeline and TTFT CDF over what has arrived, as echarts options (null when not drawable yet). */
  charts(label: string, runId: string, t: T = translator('en')): LiveCharts {
    const run: LoadedRun = {
      id: runId,
      label,
      config: {},
      environment: {},
      summary: NO_SUMMARY,
      records: this.kept,
      series: this.series,
    };
    return {
      timeline: timelineOption(run, t),
      ttft_cdf: cdfOption([run], 'ttft_ms', t),
      gpu_util: gpuPanelOption(run, 'gpu_util_pct', t),
      gpu_memory: gpuPanelOption(run, 'gpu_memory_used_mib', t),
    };
  }
}

/** Dependencies of {@link streamLive}. */
export interface LiveDeps {
  store: Store;
  clock: Clock;
  /** Poll period, ms. Default {@link LIVE_POLL_MS}. */
  pollMs?: number;
  /** Language of the charts' titles and axes (default English). */
  t?: T;
}

const mib = (v: number | null) => (v === null ? null : v / 1024);

/** One SSE frame. Data is one JSON line, so no `data:` continuation is needed. */
export function sseFrame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * Stream a run's live updates to `res` as server-sent events until the run leaves `running`
 * (then an `end` event closes the stream) or the client disconnects. The caller has already
 * checked that the run exists.
 * @returns a function that stops the stream (used when the dashboard closes)
 */
export function streamLive(row: RunRow, res: ServerResponse, deps: LiveDeps): () => void {
  const { store, clock } = deps;
  const pollMs = deps.pollMs ?? LIVE_POLL_MS;
  const tracker = new LiveTracker();
  const label = runLabel(row);
  // `Store.getSeries` returns a run's whole history; re-reading it every poll costs O(run length)
  // per viewer, so the stream keeps a rowid cursor on the store's `metric_series` table instead
  // (rowids only grow on insert). A `getSeries(runId, {afterRowid})` in the store would hide this.
  const seriesSince = store.db.prepare(
    'SELECT rowid AS rid, source, name, labels, t_ms, value FROM metric_series WHERE run_id = ? AND rowid > ? ORDER BY rowid',
  );
  let lastSeriesRowid = 0;
  let offset = 0;
  let cancel: (() => void) | null = null;
  let stopped = false;
  let sinceBeat = 0;

  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  // A finished stream must not be reopened by the browser's automatic reconnect only to end
  // again at once; the page closes its EventSource on `end`, and the retry delay bounds the rest.
  res.write('retry: 3000\n\n');

  const stop = () => {
    if (stopped) return;
    stopped = true;
    cancel?.();
    cancel = null;
    if (!res.writableEnded) res.end();
  };
  res.on('close', stop);

  /** Records and series committed since the last poll. */
  const pull = (): { newRecords: number; newSeries: SeriesSample[] } => {
    let newRecords = 0;
    for (const r of store.getRecords(row.id, { offset })) {
      tracker.addRecord(r);
      newRecords += 1;
    }
    offset += newRecords;
    const newSeries: SeriesSample[] = [];
    for (const p of seriesSince.all(row.id, lastSeriesRowid) as SeriesRow[]) {
      lastSeriesRowid = p.rid;
      newSeries.push({
        source: p.source,
        name: p.name,
        labels: JSON.parse(p.labels),
        t_ms: p.t_ms,
        value: p.value,
      });
    }
    tracker.addSeries(newSeries);
    return { newRecords, newSeries };
  };

  const update = (status: string, newRecords: number, newSeries: SeriesSample[]): LiveUpdate => ({
    run_id: row.id,
    status,
    records: offset,
    new_records: newRecords,
    stats: tracker.stats(),
    in_flight: {
      server_running: tracker.latestValue('running'),
      server_waiting: tracker.latestValue('waiting'),
      client_recent: tracker.clientInFlightAtEdge(),
    },
    gpu: {
      util_pct: tracker.latestValue('gpu_util_pct'),
      memory_gib: mib(tracker.latestValue('gpu_memory_used_mib')),
    },
    series: newSeries,
    charts: tracker.charts(label, row.id, deps.t),
  });

  const tick = (first: boolean) => {
    cancel = null;
    if (stopped) return;
    try {
      const cur = store.getRun(row.id);
      // Read the status before the records: records committed before the final status change are
      // then always in this pull or an earlier one, so `end` never misses the last batch.
      const status = cur?.status ?? 'failed';
      const { newRecords, newSeries } = pull();
      const changed = first || newRecords > 0 || newSeries.length > 0;
      if (status !== 'running') {
        const end = update(status, newRecords, newSeries);
        end.summary = !cur
          ? null
          : isSummary(cur.summary)
            ? cur.summary
            : runSummary(cur, [...store.getRecords(row.id)]).summary;
        res.write(sseFrame('end', end));
        stop();
        return;
      }
      sinceBeat += pollMs;
      if (changed) {
        res.write(sseFrame('update', update(status, newRecords, newSeries)));
        sinceBeat = 0;
      } else if (sinceBeat >= HEARTBEAT_MS) {
        res.write(': ping\n\n');
        sinceBeat = 0;
      }
    } catch (e) {
      // The store went away under us (file removed, locked too long): tell the page, then stop.
      res.write(sseFrame('error', { error: (e as Error).message }));
      stop();
      return;
    }
    cancel = clock.setTimer(() => tick(false), pollMs);
  };

  tick(true);
  return stop;
}
