/**
 * @module analysis/diagnose/rules/high-ttft
 * High TTFT with normal decode (`high_ttft`), split by cause: queueing, prefill, or a fixed
 * front-end cost; a high TTFT that none explains goes to `unexplained`.
 */
import type { RequestRecord } from '../../../record/types.js';
import type { LoadedRun } from '../../loaded-run.js';
import { mean } from '../../stats.js';
import { measuredSuccesses } from '../../summary.js';
import { attemptEndAt } from '../../window.js';
import { engineTerms } from '../engine-terms.js';
import type { Finding } from '../types.js';
import { type Opts, one, type Rule, type Unexplained } from './rule.js';
import { Coverage, fmt, median, runSeries, topIds, ttftOf } from './shared.js';

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
  // A report.json without a distribution (hand-made, or from another tool) has no symptom to read.
  const p50 = s.ttft_ms?.p50 ?? null;
  const p90 = s.ttft_ms?.p90 ?? null;
  const tpot = s.tpot_ms?.p50 ?? null;
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
      t('diagnose.high_ttft_queueing.mechanism', { why: terms.queueFull }),
      [
        t('diagnose.high_ttft_queueing.ev_waiting', { max: fmt(ser.max_waiting, 0), mean: fmt(mw, 2) }),
        t('diagnose.high_ttft_queueing.ev_running', { max: fmt(ser.max_running, 0) }),
        // No KV gauge (llama.cpp builds without kv_cache_usage_ratio): say so, not "—%".
        ser.max_kv_usage == null
          ? t('diagnose.high_ttft_queueing.ev_kv_none')
          : t('diagnose.high_ttft_queueing.ev_kv', { pct: fmt(100 * ser.max_kv_usage, 0) }),
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

export const rule: Rule = {
  id: 'high_ttft',
  scope: 'run',
  needs: ['ttft_p90'],
  emits: ['high_ttft_queueing', 'high_ttft_prefill', 'high_ttft_frontend'],
  run: (run, { o, unexplained }) => one(highTtft(run, o, unexplained)),
};
