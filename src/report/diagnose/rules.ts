/**
 * @module report/diagnose/rules
 * The diagnosis rules: each turns a symptom in client records (and, when scraped, server
 * series) into a {@link Finding} with evidence, the likely mechanism and the next experiment.
 * A symptom that no cause explains goes to `unexplained` instead of being forced into a rule.
 * Thresholds live in {@link RuleOptions}; every rule has a positive and a clean-run test.
 */
import { clientPrefillWindow, recordsInterference } from '../../analysis/interference.js';
import { chunkGaps, e2eMs, ttftMs } from '../../analysis/request.js';
import { seriesSummary } from '../../analysis/series.js';
import { describe, lowerBound, mean, percentile, upperBound } from '../../analysis/stats.js';
import { attemptEndAt, measurementWindow } from '../../analysis/window.js';
import type { ScrapePoint } from '../../record/series.js';
import type { RequestRecord } from '../../record/types.js';
import { curvesOf, loadPoints, measuredSuccesses, stallThresholdMs } from '../charts.js';
import type { Diagnosis, Finding, LoadedRun } from '../types.js';
import { engineTerms } from './engine-terms.js';
import { validityReasons } from './validity.js';

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

type Opts = Required<RuleOptions>;
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
  const warm = run.summary.requests.planned - run.summary.requests.measured;
  return {
    rule: 'cold_start',
    severity: 'warn',
    runs: [run.id],
    symptom: `the first ${k} request(s) were slow, then TTFT settled: first TTFT ${fmt(lead[0].t)} ms vs steady median ${fmt(base)} ms`,
    evidence: [
      `leading slow requests: ${k} (TTFT ${lead.map((x) => fmt(x.t, 0)).join(', ')} ms)`,
      `steady TTFT p50: ${fmt(base)} ms (second half of the run)`,
      `TTFT p90 after them: ${fmt(rest.p90)} ms`,
      `warm-up requests: ${warm}`,
    ],
    request_ids: lead.slice(0, 5).map((x) => x.r.id),
    mechanism:
      'cold start: the engine paid one-off costs on its first requests (weight loading or lazy init, torch.compile/CUDA graph capture, allocator growth, cold prefix cache); they are not steady-state latency',
    next: {
      command: 'servelab exp init baseline',
      change:
        'run it twice against a freshly started server: once with warmup: 0 (cold), once with warmup: 5 (warm); report the first request of the cold run separately',
    },
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
  const rs = measuredSuccesses(run.records);
  if (rs.length === 0) {
    // The symptom is in the summary; its cause needs each request's input length and TTFT.
    unexplained.push({
      run: run.id,
      observation: `TTFT p90 ${fmt(p90, 0)} ms is high while TPOT p50 is ${fmt(tpot, 2)} ms${run.source ? " (vLLM's definitions)" : ''}, but without per-request records queueing, prefill and front-end cost cannot be told apart`,
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
    `TTFT p50 ${fmt(p50)} ms, p90 ${fmt(p90)} ms`,
    `TPOT p50 ${fmt(tpot, 2)} ms (decode normal: TTFT p50 is ${fmt(p50 / tpot, 0)}× a token)`,
  ];
  const mk = (rule: string, mechanism: string, evidence: string[], next: Finding['next']): Finding => ({
    rule,
    severity: 'warn',
    runs: [run.id],
    symptom: `high time to first token (p90 ${fmt(p90, 0)} ms) while decoding runs at ${fmt(tpot, 1)} ms/token`,
    evidence: [...base, ...evidence],
    request_ids: worst,
    mechanism,
    next,
  });
  if (ser && ser.max_waiting !== null && ser.max_waiting >= 1) {
    const mw = mean((run.series ?? []).filter((p) => p.name === 'waiting').map((p) => p.value)) ?? 0;
    return mk(
      'high_ttft_queueing',
      `queueing: requests waited in the engine for a running slot or KV blocks before their prefill started (${engineTerms(run).maxSeqs} or KV capacity reached)`,
      [
        `server waiting: max ${fmt(ser.max_waiting, 0)}, mean ${fmt(mw, 2)}`,
        `server running: max ${fmt(ser.max_running, 0)}`,
        `KV usage: max ${fmt(ser.max_kv_usage == null ? null : 100 * ser.max_kv_usage, 0)}%`,
      ],
      {
        command: 'servelab exp init concurrency-sweep',
        change: `sweep concurrency below and above the engine's ${engineTerms(run).maxSeqs}; TTFT should track the waiting series, and rise only past saturation`,
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
      'prefill: TTFT grows with the prompt length, so the time is the prefill itself (compute-bound attention and GEMMs over the prompt)',
      [
        `TTFT ≈ ${fmt(f.a, 0)} ms + ${fmt(f.b * 1000, 2)} ms per 1k input tokens (R² ${fmt(f.r2, 2)})`,
        `input tokens ${Math.min(...lens)}–${Math.max(...lens)}`,
      ],
      {
        command: 'servelab exp init mixed-input',
        change: `compare short and long prompts at concurrency 1; try prefix caching or a larger ${engineTerms(run).batchTokens} for long prompts`,
      },
    );
  }
  if (f && f.r2 < 0.3 && f.a >= 0.5 * p50 && !ser) {
    // Flat in input length with nothing to show waiting: a per-request fixed cost.
    const inflight = meanInFlightAtSend(run.records);
    if (inflight < 1.5) {
      return mk(
        'high_ttft_frontend',
        'a fixed per-request cost before prefill: chat-template rendering, tokenisation or detokenisation in the API server (TTFT does not depend on input length and requests did not overlap)',
        [
          `TTFT ≈ ${fmt(f.a, 0)} ms + ${fmt(f.b * 1000, 2)} ms per 1k input tokens (R² ${fmt(f.r2, 2)}): flat`,
          `mean requests in flight at send: ${fmt(inflight, 2)}`,
        ],
        {
          command: 'servelab exp init baseline',
          change:
            "send the same prompt through /v1/completions (no chat template) and /v1/chat/completions; scrape /metrics to read the engine's own queue and prefill times",
        },
      );
    }
  }
  unexplained.push({
    run: run.id,
    observation: `TTFT p90 ${fmt(p90, 0)} ms is high while TPOT p50 is ${fmt(tpot, 2)} ms, but queueing, prefill and front-end cost cannot be told apart (${ser ? 'no waiting requests seen' : 'no server series scraped'}; input lengths ${spread >= 2 ? 'do not explain it' : 'all alike'})`,
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
  const gapText = (xs: Stall[]) => describe(xs.map((x) => x.to - x.from));
  const ids = (xs: Stall[]) => [...new Set(xs.map((x) => x.id))].slice(0, 5);
  const symptom = (xs: Stall[]) =>
    `${xs.length} pause(s) mid-generation longer than ${fmt(thr, 0)} ms (max ${fmt(gapText(xs).max, 0)} ms)`;
  if (byPrefill.length >= o.min_stalls || slowed) {
    const culprits = [...new Set(byPrefill.flatMap((x) => x.by))];
    const st = byPrefill.map((x) => x.s);
    const ov = inter.gaps_overlapping_ms;
    const cl = inter.gaps_clean_ms;
    const timeline =
      inter.intervals_from === 'server'
        ? "on the engine's timeline (the server's exposed timings)"
        : "from the client's records: each long prompt's [sent, first token] window, queueing included";
    const longIds = prefills.map((p) => p.id);
    const stallLines =
      st.length >= o.min_stalls
        ? [
            `stall threshold ${fmt(thr, 0)} ms (${stalls.length} stalls in ${gaps.length} gaps; median gap ${fmt(median(gaps), 1)} ms)`,
            `${byPrefill.length} of ${stalls.length} stalls overlap the prefill of a long prompt (≥ ${fmt(longCut, 0)} tokens)`,
            `stall p50 ${fmt(gapText(st).p50, 0)} ms, max ${fmt(gapText(st).max, 0)} ms`,
            `long prompts overlapping: ${culprits.slice(0, 5).join(', ')}`,
          ]
        : [`long prompts (≥ ${fmt(longCut, 0)} tokens): ${longIds.slice(0, 5).join(', ')}`];
    out.push({
      rule: 'stall_prefill_interference',
      severity: 'warn',
      runs: [run.id],
      symptom:
        st.length >= o.min_stalls
          ? symptom(st)
          : `decoding slows while long prompts prefill: chunk gaps average ${fmt(ov.mean, 2)} ms while a long prefill overlaps them vs ${fmt(cl.mean, 2)} ms otherwise (stall ratio ${fmt(inter.stall_ratio, 2)})`,
      evidence: [
        `stall ratio ${fmt(inter.stall_ratio, 2)}: mean chunk gap ${fmt(ov.mean, 2)} ms over ${ov.n} gaps overlapping a long prefill vs ${fmt(cl.mean, 2)} ms over ${cl.n} clean gaps, ${timeline}`,
        `chunk gap p99 ${fmt(ov.p99, 1)} ms while a long prefill overlaps vs ${fmt(cl.p99, 1)} ms otherwise`,
        ...stallLines,
      ],
      request_ids: st.length >= o.min_stalls ? [...ids(st), ...culprits.slice(0, 3)] : longIds.slice(0, 5),
      mechanism: `long-prefill interference: ${engineTerms(run).prefillInterference}`,
      next: {
        command: 'servelab exp init mixed-input',
        change: `repeat with ${engineTerms(run).batchTokens} halved (smaller prefill chunks): the stalls should shrink and the long prompts' TTFT grow`,
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
        `stall threshold ${fmt(thr, 0)} ms`,
        `${byClient.length} stalls shared by most streams at once`,
        `client event-loop delay max ${fmt(loopMax, 0)} ms, p99 ${fmt(run.summary.client.event_loop_delay_ms?.p99)} ms`,
      ],
      request_ids: ids(byClient),
      mechanism:
        "client-side gap: the load generator's event loop (or its CPU) paused, so chunks that had arrived were time-stamped late for every stream at once; the server did not stall",
      next: {
        command: 'servelab exp init baseline',
        change:
          "rerun with fewer concurrent streams per client process (or on a less loaded machine); the stalls should vanish if they were the client's",
      },
    });
  } else other.push(...byClient);
  // Preemption: the scheduler evicted running requests (KV full) and recomputes them later,
  // which shows as one long gap in each evicted stream.
  const ser = runSeries(run);
  if (other.length >= o.min_stalls && ser && (ser.preemptions_delta ?? 0) > 0) {
    const st = other.splice(0);
    out.push({
      rule: 'stall_preemption',
      severity: 'warn',
      runs: [run.id],
      symptom: symptom(st),
      evidence: [
        `stall threshold ${fmt(thr, 0)} ms; ${st.length} stalls with no long prefill or client lag behind them`,
        `server preemptions +${ser.preemptions_delta}, KV usage max ${fmt(100 * (ser.max_kv_usage ?? 0), 0)}%`,
        `stall p50 ${fmt(gapText(st).p50, 0)} ms, max ${fmt(gapText(st).max, 0)} ms`,
      ],
      request_ids: ids(st),
      mechanism: `${engineTerms(run).preemption === 'retraction' ? "retraction (SGLang's preemption)" : 'preemption'}: the KV cache filled, the scheduler evicted running requests and recomputed them later, so each evicted stream paused for the wait plus the recompute`,
      next: {
        command: 'servelab exp init ab',
        change: `switch: ${engineTerms(run).kvFp8} (or a lower ${engineTerms(run).maxSeqs}) at the same load: ${engineTerms(run).preemption === 'retraction' ? 'retractions' : 'preemptions'} and the long gaps should disappear`,
      },
    });
  }
  if (other.length >= o.min_stalls) {
    unexplained.push({
      run: run.id,
      observation: `${other.length} mid-generation pause(s) above ${fmt(thr, 0)} ms (max ${fmt(gapText(other).max, 0)} ms) that coincide with no long prefill and no client lag`,
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
function batchSizeAt(run: LoadedRun): { at: (t_ms: number) => number; source: string } {
  const running = (run.series ?? []).filter((p) => p.name === 'running');
  const src = running[0]?.source;
  const pts = running.filter((p) => p.source === src).sort((a, b) => a.t_ms - b.t_ms);
  if (pts.length >= 10) {
    const ts = Float64Array.from(pts.map((p) => p.t_ms));
    return { at: (t) => pts[Math.max(0, bound(ts, t, true) - 1)].value, source: 'server running series' };
  }
  const cov = new Coverage(
    run.records
      .filter((r) => r.sent_at_ms !== null)
      .map((r) => [r.sent_at_ms as number, attemptEndAt(r) as number] as const),
  );
  return { at: (t) => cov.at(t, false), source: 'requests in flight (client records)' };
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
  const batch = batchSizeAt(run);
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
    symptom: `decode gaps grow with the batch: gap p50 ${fmt(loGap, 2)} ms at ≤ ${fmt(loB, 0)} running vs ${fmt(hiGap, 2)} ms at ≥ ${fmt(hiB, 0)} running (${fmt(hiGap / loGap, 2)}×)`,
    evidence: [
      `${pts.length} chunk gaps that overlap no other request's prefill (batch size from the ${batch.source})`,
      `batch size p10 ${fmt(loB, 0)}, p90 ${fmt(hiB, 0)}`,
      `gap p50 at the low-batch decile: ${fmt(loGap, 2)} ms (${lo.length} gaps); at the high-batch decile: ${fmt(hiGap, 2)} ms (${hi.length} gaps)`,
      `Spearman rank correlation of gap vs batch size: ${fmt(rho, 2)}`,
    ],
    request_ids: slow,
    mechanism:
      'batch growth: in continuous batching every running request gets one token per engine step, and a decode step reads more KV and pays more per-request overhead as the batch grows, so every stream slows as more requests run (no prefill overlapped these gaps)',
    next: {
      command: 'servelab exp init concurrency-sweep',
      change: `sweep concurrency from ${fmt(loB, 0)} to ${fmt(hiB, 0)}: TPOT should grow with the batch size; or lower ${engineTerms(run).maxSeqs} to cap the batch and trade throughput for per-stream speed`,
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
  const label = lp.axis === 'concurrency' ? 'concurrency' : 'rate';
  const curve = pts.map((p) => `${p.x}: ${fmt(p.output_tok_s, 0)} tok/s`).join(', ');
  const symptom = `throughput ${falls ? 'falls' : 'stops rising'} at high ${label} (${curve})`;
  const kv = high
    .map((r) => ({ r, s: runSeries(r) }))
    .filter((x) => x.s && (x.s.max_kv_usage ?? 0) >= o.kv_high && (x.s.preemptions_delta ?? 0) > 0);
  if (kv.length) {
    return {
      rule: 'kv_pressure',
      severity: 'warn',
      runs: kv.map((x) => x.r.id),
      symptom,
      evidence: kv.flatMap((x) => [
        `${x.r.label}: KV usage max ${fmt(100 * (x.s?.max_kv_usage ?? 0), 0)}%, preemptions +${x.s?.preemptions_delta}, waiting max ${fmt(x.s?.max_waiting, 0)}, running max ${fmt(x.s?.max_running, 0)}`,
      ]),
      request_ids: topIds(
        kv.flatMap((x) =>
          measuredSuccesses(x.r.records).map((r) => [r.id, ttftOf(r) ?? 0] as [string, number]),
        ),
      ),
      mechanism:
        'KV-cache pressure: the KV pool is full, so the scheduler admits fewer requests than the load offers and preempts running ones (recompute), capping the batch and wasting work',
      next: {
        command: 'servelab exp init ab',
        change:
          'switch: kv_cache_dtype fp8 (twice the KV capacity), or raise gpu_memory_utilization; at the same high concurrency throughput should rise and preemptions drop',
      },
    };
  }
  const client = high
    .map((r) => ({
      r,
      reasons: validityReasons(r).filter((x) =>
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
      mechanism:
        'a client-side limit: the load generator could not offer or read the load (event-loop lag, CPU, lateness), so the server was never pushed harder',
      next: {
        command: 'servelab exp init concurrency-sweep',
        change:
          'rerun the high levels from a second client machine (or with --workers) and compare server-side token rates',
      },
    };
  }
  unexplained.push({
    run: high.map((r) => r.id).join(','),
    observation: `${symptom}; no KV pressure${high.some((r) => r.series?.length) ? '' : ' (not scraped)'} or client limit seen; compute saturation is the ordinary cause of a plateau (check GPU utilisation)`,
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

const abEvidence = (x: Side<unknown>, y: Side<unknown>, what: (r: LoadedRun) => string) => {
  const line = (s: Side<unknown>) => {
    const name = s.runs.length === 1 ? s.runs[0].label : `${what(s.runs[0])} (${s.runs.length} runs)`;
    const mean = s.runs.length === 1 ? '' : 'mean ';
    return `${name} (${what(s.runs[0])}): ${mean}${fmt(sideMean(s, tokS), 0)} tok/s, ${mean}TPOT p50 ${fmt(
      sideMean(s, (r) => r.summary.tpot_ms.p50),
      2,
    )} ms, ${mean}TTFT p50 ${fmt(sideMean(s, (r) => r.summary.ttft_ms.p50))} ms`;
  };
  const l = x.runs[0].level;
  return [
    line(x),
    line(y),
    `level: ${l?.concurrency != null ? `concurrency ${l.concurrency}` : l?.rate_rps != null ? `rate ${l.rate_rps} rps` : 'unspecified'}`,
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
    out.push({
      rule: 'quantised_slower',
      severity: 'warn',
      runs: [...sideIds(q), ...sideIds(full)],
      symptom: `${q.key} is ${fmt(100 * l, 0)}% slower than ${full.key} in output throughput`,
      evidence: abEvidence(q, full, (r) => precisionOf(r) ?? '?'),
      request_ids: [],
      mechanism:
        'quantisation cost outweighs its bandwidth saving at this batch: weight-only formats dequantise inside the GEMM, and their kernels are tuned for small batches (memory-bound decode); at a large batch the GEMMs are compute-bound, so the extra work and a less efficient kernel/shape make the step slower',
      next: {
        command: 'servelab exp init matrix',
        change: `cells: ${full.key} and ${q.key}; concurrency: [1, ${q.runs[0].level?.concurrency ?? 64}]: expect the quantised cell to win at 1 and lose at the high level`,
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
    out.push({
      rule: 'multi_gpu_slower',
      severity: 'warn',
      runs: [...sideIds(hi), ...sideIds(lo)],
      symptom: `tp=${hi.key} is ${fmt(100 * l, 0)}% slower than tp=${lo.key} in output throughput`,
      evidence: [
        ...abEvidence(hi, lo, (r) => `tp=${tpOf(r)}`),
        `interconnect: ${typeof link === 'string' ? link : 'missing from the record'}`,
      ],
      request_ids: [],
      mechanism:
        'tensor-parallel communication: every layer ends in an all-reduce across GPUs; over a slow interconnect (PCIe) and for a small model the communication costs more than the halved per-GPU compute and bandwidth save',
      next: {
        command: 'servelab exp init ab',
        change: `switch: tp (${lo.key} vs ${hi.key}) on a larger model or an NVLink machine; or run ${hi.key} independent replicas (data parallel) instead`,
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
  return {
    rule: 'truncation',
    severity: structured ? 'critical' : 'warn',
    runs: [run.id],
    symptom: `${cut} of ${n} requests (${fmt((100 * cut) / n, 0)}%) stopped at the token limit (finish_reason length)`,
    evidence: [
      `truncated output tokens: p50 ${fmt(outLen.p50, 0)}, max ${fmt(outLen.max, 0)}`,
      structured
        ? `structured output configured (${structured}): a truncated answer cannot be valid`
        : 'no structured output configured',
    ],
    request_ids: ids,
    mechanism: structured
      ? 'truncation by max_tokens under structured output: the grammar kept the model inside the schema but the answer ran out of tokens before closing it, so the output fails the schema'
      : "truncation by max_tokens: answers are longer than the limit, so output lengths (and E2E) are the limit, not the model's",
    next: {
      command: 'servelab exp init baseline',
      change:
        'raise max_tokens (output_len) until finish_reason is stop for ≥ 95% of requests; report output lengths from usage',
    },
  };
}

// ---- tails no rule explains --------------------------------------------------------------

/** A large E2E tail (p99 > 3 × p50, n ≥ 100) in a run with no finding. */
export function unexplainedTail(
  run: LoadedRun,
  findings: readonly Finding[],
  unexplained: Unexplained,
): void {
  const e = run.summary.e2e_ms;
  if (e.n < 100 || e.p50 === null || e.p99 === null || e.p99 <= 3 * e.p50) return;
  if (findings.some((f) => f.runs.includes(run.id))) return;
  const worst = topIds(measuredSuccesses(run.records).map((r) => [r.id, e2eMs(r) ?? 0]));
  unexplained.push({
    run: run.id,
    observation: `E2E p99 ${fmt(e.p99, 0)} ms is ${fmt(e.p99 / e.p50, 1)}× the p50 (${fmt(e.p50, 0)} ms) and no rule explains it${run.records.length ? '' : ' (the per-request rules could not run: no records)'}`,
    request_ids: worst,
  });
}
