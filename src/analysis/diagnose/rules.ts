/**
 * @module analysis/diagnose/rules
 * The diagnosis rules: each turns a symptom in client records (and, when scraped, server
 * series) into a {@link Finding} with evidence, the likely mechanism and the next experiment.
 * A symptom that no cause explains goes to `unexplained` instead of being forced into a rule.
 * Thresholds live in {@link RuleOptions}; every rule has a positive and a clean-run test.
 */

import type { T } from '../../core/i18n/index.js';
import type { ScrapePoint } from '../../record/series.js';
import type { RequestRecord } from '../../record/types.js';
import { clientPrefillWindow, recordsInterference } from '../interference.js';
import { curvesOf, loadPoints } from '../load-curve.js';
import type { LoadedRun } from '../loaded-run.js';
import { chunkGaps, e2eMs, ttftMs } from '../request.js';
import { seriesSummary } from '../series.js';
import { stallThresholdMs } from '../stalls.js';
import { describe, lowerBound, mean, percentile, upperBound } from '../stats.js';
import { measuredSuccesses } from '../summary.js';
import { validityReasons } from '../validity.js';
import { attemptEndAt, measurementWindow } from '../window.js';
import { EN } from './default-lang.js';
import { engineTerms } from './engine-terms.js';
import type { Diagnosis, Finding } from './types.js';

/** Rule thresholds (all overridable). */
export interface RuleOptions {
  /** Cold start: the leading requests' TTFT must exceed this multiple of the steady median… */
  cold_factor?: number;
  /** …and exceed it by at least this much, ms. */
  cold_min_excess_ms?: number;
  /** High TTFT: p90 above this, ms… */
  high_ttft_ms?: number;
  /** …and p50 above this multiple of TPOT p50 (TTFT dominates the request). */
  ttft_over_tpot?: number;
  /** Pauses: at least this many stalls before the rule speaks. */
  min_stalls?: number;
  /**
   * Prefill interference without stalls: the stall ratio (mean chunk gap while a long prefill
   * overlaps / mean clean gap, `analysis/interference`) at or above this…
   */
  interference_ratio?: number;
  /** …over at least this many overlapping gaps. */
  min_overlap_gaps?: number;
  /** Truncation: fraction of measured requests cut by `length` that is worth a finding. */
  max_truncated_fraction?: number;
  /** A/B: relative throughput loss that counts as "slower". */
  ab_min_loss?: number;
  /** KV pressure: peak KV usage at or above this (0..1). */
  kv_high?: number;
  /** Batch growth: gap p50 at the high-batch decile over the low-batch decile at least this. */
  batch_gap_ratio?: number;
  /** Batch growth: Spearman rank correlation of gap vs batch size at least this. */
  batch_min_rho?: number;
  /** Batch growth: the high-batch decile's batch size at least this multiple of the low one's. */
  batch_min_spread?: number;
}

export const RULE_DEFAULTS: Required<RuleOptions> = {
  cold_factor: 3,
  cold_min_excess_ms: 100,
  high_ttft_ms: 500,
  ttft_over_tpot: 20,
  min_stalls: 3,
  interference_ratio: 1.2,
  min_overlap_gaps: 20,
  max_truncated_fraction: 0.05,
  ab_min_loss: 0.05,
  kv_high: 0.9,
  batch_gap_ratio: 1.3,
  batch_min_rho: 0.5,
  batch_min_spread: 2,
};

/** The thresholds, and the translator the findings are written with. */
type Opts = Required<RuleOptions> & { t: T };
type Unexplained = Diagnosis['unexplained'];

const fmt = (v: number | null | undefined, d = 1) => (v == null ? '—' : v.toFixed(d));
const ttftOf = (r: RequestRecord): number | null => ttftMs(r) ?? null;
const median = (xs: readonly number[]) => describe(xs).p50 ?? 0;
const topIds = (pairs: [string, number][], k = 5) =>
  pairs
    .sort((a, b) => b[1] - a[1])
    .slice(0, k)
    .map(([id]) => id);

function runSeries(run: LoadedRun) {
  if (!run.series?.length) return null;
  const w = run.window ?? measurementWindow(run.records);
  return seriesSummary(run.series as ScrapePoint[], w ? { from_ms: w.start_ms, to_ms: w.end_ms } : {});
}

// ---- cold start --------------------------------------------------------------------------

/**
 * First request(s) slow, then normal: the leading requests (by send time) whose TTFT exceeds
 * `cold_factor` × the median of the run's second half, when everything after them is normal.
 */
export function coldStart(run: LoadedRun, o: Opts): Finding | null {
  const rs = measuredSuccesses(run.records)
    .map((r) => ({ r, t: ttftOf(r) }))
    .filter((x): x is { r: RequestRecord; t: number } => x.t !== null)
    .sort((a, b) => (a.r.sent_at_ms as number) - (b.r.sent_at_ms as number));
  if (rs.length < 6) return null;
  const base = median(rs.slice(Math.floor(rs.length / 2)).map((x) => x.t));
  const slow = (t: number) => t > o.cold_factor * base && t - base > o.cold_min_excess_ms;
  let k = 0;
  while (k < rs.length && slow(rs[k].t)) k++;
  if (k === 0 || k > rs.length / 4) return null;
  // "then normal": the rest must not keep being slow.
  const rest = describe(rs.slice(k).map((x) => x.t));
  if ((rest.p90 ?? 0) > 2 * base + o.cold_min_excess_ms) return null;
  const lead = rs.slice(0, k);
  const t = o.t;
  const warm = run.summary.requests.planned - run.summary.requests.measured;
  return {
    rule: 'cold_start',
    severity: 'warn',
    runs: [run.id],
    symptom: t('diagnose.cold_start.symptom', { k, first: fmt(lead[0].t), base: fmt(base) }),
    evidence: [
      t('diagnose.cold_start.ev_leading', { k, list: lead.map((x) => fmt(x.t, 0)).join(', ') }),
      t('diagnose.cold_start.ev_steady', { base: fmt(base) }),
      t('diagnose.cold_start.ev_after', { p90: fmt(rest.p90) }),
      t('diagnose.cold_start.ev_warmup', { n: warm }),
    ],
    request_ids: lead.slice(0, 5).map((x) => x.r.id),
    mechanism: t('diagnose.cold_start.mechanism'),
    next: { command: 'servelab exp init baseline', change: t('diagnose.cold_start.next') },
  };
}

// ---- high TTFT, normal decode ------------------------------------------------------------

/** Least-squares fit y = a + b·x with R². */
function fit(xs: readonly number[], ys: readonly number[]): { a: number; b: number; r2: number } | null {
  const n = xs.length;
  if (n < 3) return null;
  const mx = mean(xs) as number;
  const my = mean(ys) as number;
  let sxx = 0;
  let sxy = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxx += (xs[i] - mx) ** 2;
    sxy += (xs[i] - mx) * (ys[i] - my);
    syy += (ys[i] - my) ** 2;
  }
  if (sxx === 0) return null;
  const b = sxy / sxx;
  return { a: my - b * mx, b, r2: syy === 0 ? 1 : (sxy * sxy) / (sxx * syy) };
}

/**
 * High TTFT with normal decode, split by cause: queueing (the server's `waiting` series is
 * non-zero), prefill (TTFT grows with input length), or a fixed front-end cost such as chat
 * template and tokenisation (TTFT high but flat in input length, nothing waiting).
 */
export function highTtft(run: LoadedRun, o: Opts, unexplained: Unexplained): Finding | null {
  const s = run.summary;
  const p50 = s.ttft_ms.p50;
  const p90 = s.ttft_ms.p90;
  const tpot = s.tpot_ms.p50;
  if (p50 === null || p90 === null || tpot === null) return null;
  if (!(p90 > o.high_ttft_ms && p50 > o.ttft_over_tpot * tpot)) return null;
  const t = o.t;
  const rs = measuredSuccesses(run.records);
  if (rs.length === 0) {
    // The symptom is in the summary; its cause needs each request's input length and TTFT.
    unexplained.push({
      rule: 'high_ttft',
      run: run.id,
      observation: t(run.source ? 'diagnose.high_ttft.no_records_vllm' : 'diagnose.high_ttft.no_records', {
        p90: fmt(p90, 0),
        tpot: fmt(tpot, 2),
      }),
      request_ids: [],
    });
    return null;
  }
  const pts = rs
    .map((r) => [r.usage?.prompt_tokens ?? r.input_len, ttftOf(r), r.id] as const)
    .filter((p): p is readonly [number, number, string] => p[0] != null && p[1] !== null);
  const worst = topIds(pts.map((p) => [p[2], p[1]]));
  const ser = runSeries(run);
  const base = [
    t('diagnose.high_ttft.ev_ttft', { p50: fmt(p50), p90: fmt(p90) }),
    t('diagnose.high_ttft.ev_tpot', { tpot: fmt(tpot, 2), ratio: fmt(p50 / tpot, 0) }),
  ];
  const terms = engineTerms(run, t);
  const mk = (rule: string, mechanism: string, evidence: string[], next: Finding['next']): Finding => ({
    rule,
    severity: 'warn',
    runs: [run.id],
    symptom: t('diagnose.high_ttft.symptom', { p90: fmt(p90, 0), tpot: fmt(tpot, 1) }),
    evidence: [...base, ...evidence],
    request_ids: worst,
    mechanism,
    next,
  });
  if (ser && ser.max_waiting !== null && ser.max_waiting >= 1) {
    const mw = mean((run.series ?? []).filter((p) => p.name === 'waiting').map((p) => p.value)) ?? 0;
    return mk(
      'high_ttft_queueing',
      t('diagnose.high_ttft_queueing.mechanism', { maxSeqs: terms.maxSeqs }),
      [
        t('diagnose.high_ttft_queueing.ev_waiting', { max: fmt(ser.max_waiting, 0), mean: fmt(mw, 2) }),
        t('diagnose.high_ttft_queueing.ev_running', { max: fmt(ser.max_running, 0) }),
        t('diagnose.high_ttft_queueing.ev_kv', {
          pct: fmt(ser.max_kv_usage == null ? null : 100 * ser.max_kv_usage, 0),
        }),
      ],
      {
        command: 'servelab exp init concurrency-sweep',
        change: t('diagnose.high_ttft_queueing.next', { maxSeqs: terms.maxSeqs }),
      },
    );
  }
  const lens = pts.map((p) => p[0]);
  const spread = lens.length ? Math.max(...lens) / Math.max(1, Math.min(...lens)) : 1;
  const f =
    spread >= 2
      ? fit(
          lens,
          pts.map((p) => p[1]),
        )
      : null;
  if (f && f.r2 >= 0.6 && f.b * median(lens) >= 0.5 * p50) {
    return mk(
      'high_ttft_prefill',
      t('diagnose.high_ttft_prefill.mechanism'),
      [
        t('diagnose.high_ttft.ev_fit', { a: fmt(f.a, 0), b: fmt(f.b * 1000, 2), r2: fmt(f.r2, 2) }),
        t('diagnose.high_ttft_prefill.ev_inputs', { min: Math.min(...lens), max: Math.max(...lens) }),
      ],
      {
        command: 'servelab exp init mixed-input',
        change: t('diagnose.high_ttft_prefill.next', { batchTokens: terms.batchTokens }),
      },
    );
  }
  if (f && f.r2 < 0.3 && f.a >= 0.5 * p50 && !ser) {
    // Flat in input length with nothing to show waiting: a per-request fixed cost.
    const inflight = meanInFlightAtSend(run.records);
    if (inflight < 1.5) {
      return mk(
        'high_ttft_frontend',
        t('diagnose.high_ttft_frontend.mechanism'),
        [
          t('diagnose.high_ttft.ev_fit_flat', { a: fmt(f.a, 0), b: fmt(f.b * 1000, 2), r2: fmt(f.r2, 2) }),
          t('diagnose.high_ttft_frontend.ev_inflight', { n: fmt(inflight, 2) }),
        ],
        { command: 'servelab exp init baseline', change: t('diagnose.high_ttft_frontend.next') },
      );
    }
  }
  unexplained.push({
    rule: 'high_ttft',
    run: run.id,
    observation: t(
      ser ? 'diagnose.high_ttft.unexplained_series' : 'diagnose.high_ttft.unexplained_no_series',
      {
        p90: fmt(p90, 0),
        tpot: fmt(tpot, 2),
        lens: t(spread >= 2 ? 'diagnose.high_ttft.lens_spread' : 'diagnose.high_ttft.lens_alike'),
      },
    ),
    request_ids: worst,
  });
  return null;
}

/** Intervals sorted for counting how many cover an instant in O(log n). */
class Coverage {
  private readonly starts: Float64Array;
  private readonly ends: Float64Array;
  constructor(iv: readonly (readonly [number, number])[]) {
    this.starts = Float64Array.from(iv.map((x) => x[0])).sort();
    this.ends = Float64Array.from(iv.map((x) => x[1])).sort();
  }
  /** Intervals with start ≤ t < end (`closed`) or start < t < end. */
  at(t: number, closed = true): number {
    const started = closed ? bound(this.starts, t, true) : bound(this.starts, t, false);
    return started - bound(this.ends, t, true);
  }
}

/** Number of values ≤ x (`inclusive`) or < x in ascending `a`. */
const bound = (a: Float64Array, x: number, inclusive: boolean): number =>
  inclusive ? upperBound(a, x) : lowerBound(a, x);

/** Mean number of requests in flight (itself included) at each request's send. */
function meanInFlightAtSend(records: readonly RequestRecord[]): number {
  const iv = records
    .filter((r) => r.sent_at_ms !== null)
    .map((r) => [r.sent_at_ms as number, attemptEndAt(r) as number] as const);
  if (iv.length === 0) return 0;
  const cov = new Coverage(iv);
  let total = 0;
  for (const [s] of iv) total += cov.at(s);
  return total / iv.length;
}

// ---- pauses mid-generation ---------------------------------------------------------------

interface Stall {
  id: string;
  from: number;
  to: number;
}

/** A prompt's length: the server's count, else the requested one (0 when neither is known). */
const promptLen = (r: RequestRecord) => r.usage?.prompt_tokens ?? r.input_len ?? 0;

/**
 * The run's long prompts: at least 512 tokens and twice the median prompt, so a run of equal
 * lengths has none and a mixed one has its long class.
 */
function longPrompts(records: readonly RequestRecord[]): {
  cut: number;
  isLong: (r: RequestRecord) => boolean;
} {
  const cut = Math.max(512, 2 * median(records.map(promptLen)));
  return { cut, isLong: (r) => promptLen(r) >= cut };
}

/**
 * Pauses in the middle of generation (chunk gaps above the stall threshold), attributed to
 * long-prefill interference (the gap overlaps another request's long prefill window
 * [sent, first token]) or to the client (the gap is shared by most requests in flight and the
 * client's event loop lagged as long). Stalls matching neither go to `unexplained`.
 *
 * Long-prefill interference is also named without stalls when decoding is measurably slower
 * while long prompts prefill: the stall ratio of `analysis/interference` (the number the
 * `mixed-input` experiment reports, from the records alone) is at least `interference_ratio`
 * over at least `min_overlap_gaps` overlapping gaps.
 */
export function pauses(run: LoadedRun, o: Opts, unexplained: Unexplained): Finding[] {
  const rs = measuredSuccesses(run.records);
  const gaps = rs.flatMap(chunkGaps);
  const thr = stallThresholdMs(gaps);
  if (thr === null) return [];
  const stalls: Stall[] = [];
  for (const r of rs) {
    const ts = r.chunk_times_ms;
    for (let i = 1; i < ts.length; i++)
      if (ts[i] - ts[i - 1] > thr) stalls.push({ id: r.id, from: ts[i - 1], to: ts[i] });
  }
  const { cut: longCut, isLong } = longPrompts(run.records);
  const inter = recordsInterference(run.records, isLong);
  const slowed =
    inter.stall_ratio !== null &&
    inter.stall_ratio >= o.interference_ratio &&
    inter.gaps_overlapping_ms.n >= o.min_overlap_gaps;
  if (stalls.length < o.min_stalls && !slowed) return [];
  // Too few stalls to judge one by one: only the stall ratio can speak.
  const judged = stalls.length >= o.min_stalls ? stalls : [];
  const prefills = run.records
    .filter(isLong)
    .map((r) => ({ id: r.id, w: clientPrefillWindow(r) }))
    .filter((p): p is { id: string; w: [number, number] } => p.w !== null)
    .map((p) => ({ id: p.id, from: p.w[0], to: p.w[1] }));
  const loopMax = run.summary.client.event_loop_delay_ms?.max ?? 0;
  const live = new Coverage(rs.map((r) => [r.first_token_at_ms ?? 0, r.last_token_at_ms ?? 0] as const));
  const stalled = new Coverage(stalls.map((x) => [x.from, x.to] as const));
  const byPrefill: { s: Stall; by: string[] }[] = [];
  const byClient: Stall[] = [];
  const other: Stall[] = [];
  for (const s of judged) {
    const by = prefills.filter((p) => p.id !== s.id && p.from < s.to && p.to > s.from).map((p) => p.id);
    if (by.length) {
      byPrefill.push({ s, by });
      continue;
    }
    // A client pause freezes every stream at once: most streams live at the gap's midpoint
    // show a stall covering it too.
    const mid = (s.from + s.to) / 2;
    const liveAt = live.at(mid, false);
    const sharing = stalled.at(mid, false);
    if (loopMax >= 0.5 * (s.to - s.from) && liveAt > 0 && sharing >= 0.5 * liveAt) byClient.push(s);
    else other.push(s);
  }
  const out: Finding[] = [];
  const t = o.t;
  const terms = engineTerms(run, t);
  const gapText = (xs: Stall[]) => describe(xs.map((x) => x.to - x.from));
  const ids = (xs: Stall[]) => [...new Set(xs.map((x) => x.id))].slice(0, 5);
  const symptom = (xs: Stall[]) =>
    t('diagnose.pauses.symptom', { n: xs.length, thr: fmt(thr, 0), max: fmt(gapText(xs).max, 0) });
  const stallP = (xs: Stall[]) =>
    t('diagnose.pauses.ev_stall_p', { p50: fmt(gapText(xs).p50, 0), max: fmt(gapText(xs).max, 0) });
  if (byPrefill.length >= o.min_stalls || slowed) {
    const culprits = [...new Set(byPrefill.flatMap((x) => x.by))];
    const st = byPrefill.map((x) => x.s);
    const ov = inter.gaps_overlapping_ms;
    const cl = inter.gaps_clean_ms;
    const timeline = t(
      inter.intervals_from === 'server'
        ? 'diagnose.stall_prefill_interference.timeline_server'
        : 'diagnose.stall_prefill_interference.timeline_client',
    );
    const longIds = prefills.map((p) => p.id);
    const stallLines =
      st.length >= o.min_stalls
        ? [
            t('diagnose.stall_prefill_interference.ev_threshold', {
              thr: fmt(thr, 0),
              stalls: stalls.length,
              gaps: gaps.length,
              median: fmt(median(gaps), 1),
            }),
            t('diagnose.stall_prefill_interference.ev_overlap', {
              n: byPrefill.length,
              stalls: stalls.length,
              cut: fmt(longCut, 0),
            }),
            stallP(st),
            t('diagnose.stall_prefill_interference.ev_culprits', { ids: culprits.slice(0, 5).join(', ') }),
          ]
        : [
            t('diagnose.stall_prefill_interference.ev_long', {
              cut: fmt(longCut, 0),
              ids: longIds.slice(0, 5).join(', '),
            }),
          ];
    out.push({
      rule: 'stall_prefill_interference',
      severity: 'warn',
      runs: [run.id],
      symptom:
        st.length >= o.min_stalls
          ? symptom(st)
          : t('diagnose.stall_prefill_interference.symptom_slowed', {
              ov: fmt(ov.mean, 2),
              cl: fmt(cl.mean, 2),
              ratio: fmt(inter.stall_ratio, 2),
            }),
      evidence: [
        t('diagnose.stall_prefill_interference.ev_ratio', {
          ratio: fmt(inter.stall_ratio, 2),
          ov: fmt(ov.mean, 2),
          ovn: ov.n,
          cl: fmt(cl.mean, 2),
          cln: cl.n,
          timeline,
        }),
        t('diagnose.stall_prefill_interference.ev_p99', { ov: fmt(ov.p99, 1), cl: fmt(cl.p99, 1) }),
        ...stallLines,
      ],
      request_ids: st.length >= o.min_stalls ? [...ids(st), ...culprits.slice(0, 3)] : longIds.slice(0, 5),
      mechanism: t('diagnose.stall_prefill_interference.mechanism', { how: terms.prefillInterference }),
      next: {
        command: 'servelab exp init mixed-input',
        change: t('diagnose.stall_prefill_interference.next', { batchTokens: terms.batchTokens }),
      },
    });
  } else other.push(...byPrefill.map((x) => x.s));
  if (byClient.length >= o.min_stalls) {
    out.push({
      rule: 'stall_client',
      severity: 'warn',
      runs: [run.id],
      symptom: symptom(byClient),
      evidence: [
        t('diagnose.stall_client.ev_threshold', { thr: fmt(thr, 0) }),
        t('diagnose.stall_client.ev_shared', { n: byClient.length }),
        t('diagnose.stall_client.ev_loop', {
          max: fmt(loopMax, 0),
          p99: fmt(run.summary.client.event_loop_delay_ms?.p99),
        }),
      ],
      request_ids: ids(byClient),
      mechanism: t('diagnose.stall_client.mechanism'),
      next: { command: 'servelab exp init baseline', change: t('diagnose.stall_client.next') },
    });
  } else other.push(...byClient);
  // Preemption: the scheduler evicted running requests (KV full) and recomputes them later,
  // which shows as one long gap in each evicted stream.
  const ser = runSeries(run);
  if (other.length >= o.min_stalls && ser && (ser.preemptions_delta ?? 0) > 0) {
    const st = other.splice(0);
    const retraction = terms.preemption === 'retraction';
    out.push({
      rule: 'stall_preemption',
      severity: 'warn',
      runs: [run.id],
      symptom: symptom(st),
      evidence: [
        t('diagnose.stall_preemption.ev_threshold', { thr: fmt(thr, 0), n: st.length }),
        t('diagnose.stall_preemption.ev_server', {
          n: ser.preemptions_delta,
          pct: fmt(100 * (ser.max_kv_usage ?? 0), 0),
        }),
        stallP(st),
      ],
      request_ids: ids(st),
      mechanism: t(
        retraction ? 'diagnose.stall_preemption.mechanism_retraction' : 'diagnose.stall_preemption.mechanism',
      ),
      next: {
        command: 'servelab exp init ab',
        change: t(
          retraction ? 'diagnose.stall_preemption.next_retraction' : 'diagnose.stall_preemption.next',
          {
            kvFp8: terms.kvFp8,
            maxSeqs: terms.maxSeqs,
          },
        ),
      },
    });
  }
  if (other.length >= o.min_stalls) {
    unexplained.push({
      rule: 'pauses',
      run: run.id,
      observation: t('diagnose.pauses.unexplained', {
        n: other.length,
        thr: fmt(thr, 0),
        max: fmt(gapText(other).max, 0),
      }),
      request_ids: ids(other),
    });
  }
  return out;
}

// ---- pauses from batch growth -----------------------------------------------------------

/** Spearman rank correlation (ties get their mean rank), or null when either side is constant. */
export function spearman(xs: readonly number[], ys: readonly number[]): number | null {
  const rank = (v: readonly number[]) => {
    const idx = v.map((_, i) => i).sort((a, b) => v[a] - v[b]);
    const r = new Float64Array(v.length);
    for (let i = 0; i < idx.length; ) {
      let j = i;
      while (j + 1 < idx.length && v[idx[j + 1]] === v[idx[i]]) j++;
      for (let k = i; k <= j; k++) r[idx[k]] = (i + j) / 2;
      i = j + 1;
    }
    return r;
  };
  const n = xs.length;
  if (n < 3) return null;
  const rx = rank(xs);
  const ry = rank(ys);
  const m = (n - 1) / 2;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (rx[i] - m) * (ry[i] - m);
    sxx += (rx[i] - m) ** 2;
    syy += (ry[i] - m) ** 2;
  }
  return sxx === 0 || syy === 0 ? null : sxy / Math.sqrt(sxx * syy);
}

/**
 * The batch size at an instant: the scraped `running` series (last sample at or before it) when
 * present, since it counts only scheduled requests, not queued ones; else the number of
 * requests in flight from the records' [sent, end] intervals.
 */
function batchSizeAt(run: LoadedRun, t: T): { at: (t_ms: number) => number; source: string } {
  const running = (run.series ?? []).filter((p) => p.name === 'running');
  const src = running[0]?.source;
  const pts = running.filter((p) => p.source === src).sort((a, b) => a.t_ms - b.t_ms);
  if (pts.length >= 10) {
    const ts = Float64Array.from(pts.map((p) => p.t_ms));
    return {
      at: (x) => pts[Math.max(0, bound(ts, x, true) - 1)].value,
      source: t('diagnose.stall_batch_growth.source_series'),
    };
  }
  const cov = new Coverage(
    run.records
      .filter((r) => r.sent_at_ms !== null)
      .map((r) => [r.sent_at_ms as number, attemptEndAt(r) as number] as const),
  );
  return { at: (x) => cov.at(x, false), source: t('diagnose.stall_batch_growth.source_inflight') };
}

/**
 * Decode gaps that grow with the batch: in continuous batching every running request gets one
 * token per engine step, and a decode step reads more KV and pays more per-request overhead as
 * the batch grows, so each stream's chunk gaps lengthen with the number of requests in flight.
 * Gaps that overlap any other request's prefill window [sent, first token] are left out (that
 * is interference, not the batch), and a run whose client lagged is not judged (its gaps
 * include the client's own pauses), nor are gaps after the last send (the drain). Speaks when the gap p50 at the highest-batch decile is
 * ≥ `batch_gap_ratio` × the lowest one's, the batch itself grew ≥ `batch_min_spread`×, and the
 * rank correlation of gap and batch size is ≥ `batch_min_rho`.
 */
export function batchGrowth(run: LoadedRun, o: Opts): Finding | null {
  if (validityReasons(run).some((x) => x.code === 'event_loop_lag' || x.code === 'client_cpu')) return null;
  const rs = measuredSuccesses(run.records);
  const prefills = run.records.map(clientPrefillWindow).filter((w): w is [number, number] => w !== null);
  // Prefill windows that began before a gap's end and ended after its start overlap it:
  // started before `to` minus ended at or before `from`. A request's own prefill ends at its
  // first token, before any of its gaps, so it never counts.
  const prefillStarts = Float64Array.from(prefills.map((p) => p[0])).sort();
  const prefillEnds = Float64Array.from(prefills.map((p) => p[1])).sort();
  const overlapping = (from: number, to: number) =>
    bound(prefillStarts, to, false) - bound(prefillEnds, from, true);
  // After the last send the offered load stops and the batch only drains: every finite run
  // ends so (a closed loop included), and the faster tail gaps are not a symptom. Judge only
  // gaps that ended while load was still being offered.
  let lastSent = Number.NEGATIVE_INFINITY;
  for (const r of run.records) if (r.sent_at_ms !== null && r.sent_at_ms > lastSent) lastSent = r.sent_at_ms;
  const t = o.t;
  const batch = batchSizeAt(run, t);
  const pts: { id: string; gap: number; b: number }[] = [];
  for (const r of rs) {
    const ts = r.chunk_times_ms;
    for (let i = 1; i < ts.length && ts[i] <= lastSent; i++) {
      if (overlapping(ts[i - 1], ts[i]) > 0) continue;
      pts.push({ id: r.id, gap: ts[i] - ts[i - 1], b: batch.at((ts[i - 1] + ts[i]) / 2) });
    }
  }
  if (pts.length < 100) return null;
  const bs = Float64Array.from(pts.map((p) => p.b)).sort();
  const loB = percentile(bs, 10) as number;
  const hiB = percentile(bs, 90) as number;
  if (loB <= 0 || hiB < o.batch_min_spread * loB) return null;
  const lo = pts.filter((p) => p.b <= loB);
  const hi = pts.filter((p) => p.b >= hiB);
  if (lo.length < 20 || hi.length < 20) return null;
  const loGap = median(lo.map((p) => p.gap));
  const hiGap = median(hi.map((p) => p.gap));
  const rho = spearman(
    pts.map((p) => p.b),
    pts.map((p) => p.gap),
  );
  if (loGap <= 0 || hiGap < o.batch_gap_ratio * loGap || rho === null || rho < o.batch_min_rho) return null;
  // The streams with the slowest high-batch gaps.
  const slow = [...new Set([...hi].sort((a, b) => b.gap - a.gap).map((p) => p.id))].slice(0, 5);
  return {
    rule: 'stall_batch_growth',
    severity: 'warn',
    runs: [run.id],
    symptom: t('diagnose.stall_batch_growth.symptom', {
      lo: fmt(loGap, 2),
      loB: fmt(loB, 0),
      hi: fmt(hiGap, 2),
      hiB: fmt(hiB, 0),
      ratio: fmt(hiGap / loGap, 2),
    }),
    evidence: [
      t('diagnose.stall_batch_growth.ev_gaps', { n: pts.length, source: batch.source }),
      t('diagnose.stall_batch_growth.ev_batch', { lo: fmt(loB, 0), hi: fmt(hiB, 0) }),
      t('diagnose.stall_batch_growth.ev_deciles', {
        lo: fmt(loGap, 2),
        lon: lo.length,
        hi: fmt(hiGap, 2),
        hin: hi.length,
      }),
      t('diagnose.stall_batch_growth.ev_rho', { rho: fmt(rho, 2) }),
    ],
    request_ids: slow,
    mechanism: t('diagnose.stall_batch_growth.mechanism'),
    next: {
      command: 'servelab exp init concurrency-sweep',
      change: t('diagnose.stall_batch_growth.next', {
        lo: fmt(loB, 0),
        hi: fmt(hiB, 0),
        maxSeqs: engineTerms(run, t).maxSeqs,
      }),
    },
  };
}

// ---- throughput stops rising at high load ------------------------------------------------

/**
 * Throughput stops rising (or falls) at high concurrency, across ≥ 3 load levels. KV pressure
 * (peak KV usage ≥ `kv_high` and the preemption counter rising) or a client-side limit (the
 * high-load runs fail the client checks) explain it; otherwise it goes to `unexplained`.
 */
export function throughputPlateau(
  runs: readonly LoadedRun[],
  o: Opts,
  unexplained: Unexplained,
): Finding | null {
  const lp = loadPoints(runs);
  if (!lp || lp.points.length < 3) return null;
  const pts = lp.points.filter((p) => p.output_tok_s !== null);
  if (pts.length < 3) return null;
  const peak = pts.reduce((a, b) => ((b.output_tok_s as number) > (a.output_tok_s as number) ? b : a));
  const last = pts[pts.length - 1];
  const prev = pts[pts.length - 2];
  const falls = (last.output_tok_s as number) < 0.9 * (peak.output_tok_s as number);
  // "Stops rising": the last step multiplied the load by ≥ 1.5 but throughput grew by less than
  // a quarter of that (linear scaling would grow it as much as the load).
  const loadGain = last.x / prev.x - 1;
  const tputGain = (last.output_tok_s as number) / (prev.output_tok_s as number) - 1;
  const flat = last.x >= 1.5 * prev.x && tputGain < 0.25 * loadGain;
  if (!falls && !flat) return null;
  // The runs past the point where scaling stopped.
  const fromX = falls ? peak.x : prev.x;
  const high = runs.filter((r) => (r.level?.[lp.axis] ?? 0) >= fromX);
  const t = o.t;
  const curve = pts.map((p) => t('diagnose.plateau.point', { x: p.x, v: fmt(p.output_tok_s, 0) })).join(', ');
  const symptom = t(
    lp.axis === 'concurrency'
      ? falls
        ? 'diagnose.plateau.falls_concurrency'
        : 'diagnose.plateau.flat_concurrency'
      : falls
        ? 'diagnose.plateau.falls_rate'
        : 'diagnose.plateau.flat_rate',
    { curve },
  );
  const kv = high
    .map((r) => ({ r, s: runSeries(r) }))
    .filter((x) => x.s && (x.s.max_kv_usage ?? 0) >= o.kv_high && (x.s.preemptions_delta ?? 0) > 0);
  if (kv.length) {
    return {
      rule: 'kv_pressure',
      severity: 'warn',
      runs: kv.map((x) => x.r.id),
      symptom,
      evidence: kv.map((x) =>
        t('diagnose.kv_pressure.ev', {
          label: x.r.label,
          pct: fmt(100 * (x.s?.max_kv_usage ?? 0), 0),
          n: x.s?.preemptions_delta,
          waiting: fmt(x.s?.max_waiting, 0),
          running: fmt(x.s?.max_running, 0),
        }),
      ),
      request_ids: topIds(
        kv.flatMap((x) =>
          measuredSuccesses(x.r.records).map((r) => [r.id, ttftOf(r) ?? 0] as [string, number]),
        ),
      ),
      mechanism: t('diagnose.kv_pressure.mechanism'),
      next: { command: 'servelab exp init ab', change: t('diagnose.kv_pressure.next') },
    };
  }
  const client = high
    .map((r) => ({
      r,
      reasons: validityReasons(r, {}, t).filter((x) =>
        ['lateness', 'event_loop_lag', 'client_cpu'].includes(x.code),
      ),
    }))
    .filter((x) => x.reasons.length > 0);
  if (client.length) {
    return {
      rule: 'client_limit',
      severity: 'warn',
      runs: client.map((x) => x.r.id),
      symptom,
      evidence: client.flatMap((x) => x.reasons.map((m) => `${x.r.label}: ${m.message}`)),
      request_ids: [],
      mechanism: t('diagnose.client_limit.mechanism'),
      next: { command: 'servelab exp init concurrency-sweep', change: t('diagnose.client_limit.next') },
    };
  }
  unexplained.push({
    rule: 'throughput_plateau',
    run: high.map((r) => r.id).join(','),
    observation: t(
      high.some((r) => r.series?.length)
        ? 'diagnose.plateau.unexplained'
        : 'diagnose.plateau.unexplained_not_scraped',
      { symptom },
    ),
    request_ids: [],
  });
  return null;
}

/** {@link throughputPlateau} on each target's own load curve. */
export function throughputPlateaus(runs: readonly LoadedRun[], o: Opts, unexplained: Unexplained): Finding[] {
  const out: Finding[] = [];
  for (const c of curvesOf(runs)) {
    const f = throughputPlateau(c.runs, o, unexplained);
    if (f) out.push(f);
  }
  return out;
}

// ---- A/B pairs: precision and tensor parallelism -----------------------------------------

const FULL_PRECISION = new Set(['bf16', 'bfloat16', 'fp16', 'float16', 'half', 'auto', 'fp32', 'float32']);

/** Weight precision of a run: record precision.weights, else config dtype/quantization. */
export function precisionOf(run: LoadedRun): string | null {
  const v = run.record?.precision?.value?.weights ?? run.config.dtype ?? run.config.quantization;
  return typeof v === 'string' ? v.toLowerCase() : null;
}

/** Tensor-parallel size: config tp, else the record's device count. */
export function tpOf(run: LoadedRun): number | null {
  const v = run.config.tp ?? run.config.tensor_parallel_size ?? run.record?.device?.value?.count;
  return typeof v === 'number' ? v : null;
}

/**
 * The load level a run compares at: its level without the A/B bookkeeping (`side`, `block`), so
 * the blocks of one A/B side pool together and meet the other side's at the same level.
 */
const levelKey = (r: LoadedRun): string =>
  JSON.stringify(
    Object.entries((r.level ?? {}) as Record<string, unknown>)
      .filter(([k, v]) => k !== 'side' && k !== 'block' && v != null)
      .sort(([x], [y]) => (x < y ? -1 : 1)),
  );

/** Runs that share a level and a value of the compared key (one A/B side, or one run). */
interface Side<T> {
  key: T;
  runs: LoadedRun[];
}

/**
 * Pairs of sides at the same level where `key` differs and both are known. Runs with the same
 * key at the same level are pooled (an A/B experiment measures each side in several blocks),
 * so one switch gives one pair, not one per combination of blocks.
 */
function pairs<T>(runs: readonly LoadedRun[], key: (r: LoadedRun) => T | null): [Side<T>, Side<T>][] {
  const byLevel = new Map<string, Side<T>[]>();
  for (const r of runs) {
    const k = key(r);
    if (k === null) continue;
    const lk = levelKey(r);
    const sides = byLevel.get(lk) ?? [];
    const side = sides.find((x) => x.key === k);
    if (side) side.runs.push(r);
    else sides.push({ key: k, runs: [r] });
    byLevel.set(lk, sides);
  }
  const out: [Side<T>, Side<T>][] = [];
  for (const sides of byLevel.values())
    for (let i = 0; i < sides.length; i++)
      for (let j = i + 1; j < sides.length; j++) out.push([sides[i], sides[j]]);
  return out;
}

/** Mean over a side's runs of a summary number (null when no run has it). */
function sideMean(side: Side<unknown>, get: (r: LoadedRun) => number | null): number | null {
  return mean(side.runs.map(get).filter((v): v is number => v !== null));
}

const tokS = (r: LoadedRun) => r.summary.output_throughput_tok_s;

/** Relative throughput loss of `slow` against `fast` (positive = slower), or null. */
function loss(slow: Side<unknown>, fast: Side<unknown>): number | null {
  const a = sideMean(slow, tokS);
  const b = sideMean(fast, tokS);
  return a === null || b === null || b <= 0 ? null : 1 - a / b;
}

const sideIds = (x: Side<unknown>) => x.runs.map((r) => r.id);

const abEvidence = (t: T, x: Side<unknown>, y: Side<unknown>, what: (r: LoadedRun) => string) => {
  const line = (s: Side<unknown>) => {
    const one = s.runs.length === 1;
    return t(one ? 'diagnose.ab.line' : 'diagnose.ab.line_mean', {
      name: one ? s.runs[0].label : t('diagnose.ab.side_runs', { what: what(s.runs[0]), n: s.runs.length }),
      what: what(s.runs[0]),
      tok: fmt(sideMean(s, tokS), 0),
      tpot: fmt(
        sideMean(s, (r) => r.summary.tpot_ms.p50),
        2,
      ),
      ttft: fmt(sideMean(s, (r) => r.summary.ttft_ms.p50)),
    });
  };
  const l = x.runs[0].level;
  return [
    line(x),
    line(y),
    l?.concurrency != null
      ? t('diagnose.ab.level_concurrency', { c: l.concurrency })
      : l?.rate_rps != null
        ? t('diagnose.ab.level_rate', { r: l.rate_rps })
        : t('diagnose.ab.level_unspecified'),
  ];
};

/** A quantised run (or A/B side) slower than its full-precision pair at the same level. */
export function quantisedSlower(runs: readonly LoadedRun[], o: Opts): Finding[] {
  const out: Finding[] = [];
  for (const [a, b] of pairs(runs, precisionOf)) {
    const qa = !FULL_PRECISION.has(a.key);
    const qb = !FULL_PRECISION.has(b.key);
    if (qa === qb) continue;
    const [q, full] = qa ? [a, b] : [b, a];
    const l = loss(q, full);
    if (l === null || l < o.ab_min_loss) continue;
    const t = o.t;
    out.push({
      rule: 'quantised_slower',
      severity: 'warn',
      runs: [...sideIds(q), ...sideIds(full)],
      symptom: t('diagnose.quantised_slower.symptom', { q: q.key, pct: fmt(100 * l, 0), full: full.key }),
      evidence: abEvidence(t, q, full, (r) => precisionOf(r) ?? '?'),
      request_ids: [],
      mechanism: t('diagnose.quantised_slower.mechanism'),
      next: {
        command: 'servelab exp init matrix',
        change: t('diagnose.quantised_slower.next', {
          full: full.key,
          q: q.key,
          c: q.runs[0].level?.concurrency ?? 64,
        }),
      },
    });
  }
  return out;
}

/** A higher tensor-parallel run (or A/B side) slower than its lower-tp pair at the same level. */
export function multiGpuSlower(runs: readonly LoadedRun[], o: Opts): Finding[] {
  const out: Finding[] = [];
  for (const [a, b] of pairs(runs, tpOf)) {
    const [hi, lo] = a.key > b.key ? [a, b] : [b, a];
    const l = loss(hi, lo);
    if (l === null || l < o.ab_min_loss) continue;
    const link = hi.runs[0].record?.device?.value?.interconnect;
    const t = o.t;
    out.push({
      rule: 'multi_gpu_slower',
      severity: 'warn',
      runs: [...sideIds(hi), ...sideIds(lo)],
      symptom: t('diagnose.multi_gpu_slower.symptom', { hi: hi.key, pct: fmt(100 * l, 0), lo: lo.key }),
      evidence: [
        ...abEvidence(t, hi, lo, (r) => `tp=${tpOf(r)}`),
        typeof link === 'string'
          ? t('diagnose.multi_gpu_slower.ev_link', { link })
          : t('diagnose.multi_gpu_slower.ev_link_missing'),
      ],
      request_ids: [],
      mechanism: t('diagnose.multi_gpu_slower.mechanism'),
      next: {
        command: 'servelab exp init ab',
        change: t('diagnose.multi_gpu_slower.next', { lo: lo.key, hi: hi.key }),
      },
    });
  }
  return out;
}

// ---- structured output / truncation ------------------------------------------------------

/**
 * Requests cut by a token limit (outcome `length`: they stopped at a limit before the output
 * length they asked for, or asked for none; `isTruncated` in `record/outcome`). A fixed-length
 * benchmark whose requests reached their length is not truncated, so it never shows here. With
 * structured output configured, a cut answer is also invalid JSON.
 */
export function truncation(run: LoadedRun, o: Opts): Finding | null {
  const s = run.summary;
  const n = s.requests.measured;
  const cut = s.outcomes.length;
  if (n === 0 || cut / n <= o.max_truncated_fraction) return null;
  const target = run.config.target as { extra_body?: Record<string, unknown> | null } | undefined;
  const cfg = { ...(target?.extra_body ?? {}), ...run.config };
  const structured = [
    'response_format',
    'json_schema',
    'guided_json',
    'guided_regex',
    'structured_outputs',
  ].find((k) => cfg[k] != null);
  const ids = measuredSuccesses(run.records)
    .filter((r) => r.outcome === 'length')
    .slice(0, 5)
    .map((r) => r.id);
  const outLen = describe(
    measuredSuccesses(run.records)
      .filter((r) => r.outcome === 'length')
      .map((r) => r.usage?.completion_tokens ?? 0),
  );
  const t = o.t;
  return {
    rule: 'truncation',
    severity: structured ? 'critical' : 'warn',
    runs: [run.id],
    symptom: t('diagnose.truncation.symptom', { cut, n, pct: fmt((100 * cut) / n, 0) }),
    evidence: [
      t('diagnose.truncation.ev_tokens', { p50: fmt(outLen.p50, 0), max: fmt(outLen.max, 0) }),
      structured
        ? t('diagnose.truncation.ev_structured', { key: structured })
        : t('diagnose.truncation.ev_unstructured'),
    ],
    request_ids: ids,
    mechanism: t(structured ? 'diagnose.truncation.mechanism_structured' : 'diagnose.truncation.mechanism'),
    next: { command: 'servelab exp init baseline', change: t('diagnose.truncation.next') },
  };
}

// ---- tails no rule explains --------------------------------------------------------------

/** A large E2E tail (p99 > 3 × p50, n ≥ 100) in a run with no finding. */
export function unexplainedTail(
  run: LoadedRun,
  findings: readonly Finding[],
  unexplained: Unexplained,
  t: T = EN,
): void {
  const e = run.summary.e2e_ms;
  if (e.n < 100 || e.p50 === null || e.p99 === null || e.p99 <= 3 * e.p50) return;
  if (findings.some((f) => f.runs.includes(run.id))) return;
  const worst = topIds(measuredSuccesses(run.records).map((r) => [r.id, e2eMs(r) ?? 0]));
  unexplained.push({
    rule: 'tail',
    run: run.id,
    observation: t(
      run.records.length ? 'diagnose.tail.unexplained' : 'diagnose.tail.unexplained_no_records',
      {
        p99: fmt(e.p99, 0),
        ratio: fmt(e.p99 / e.p50, 1),
        p50: fmt(e.p50, 0),
      },
    ),
    request_ids: worst,
  });
}
