/**
 * @module analysis/diagnose/rules/pauses
 * Pauses in the middle of generation (`pauses`): stalls attributed to prefill interference
 * (by time overlap with other requests' prefill windows, the server's own where it timed them),
 * to the client (its event loop lagged at the stall's time), or to preemption; the rest go to
 * `unexplained`.
 */
import type { EventLoopLag } from '../../../analysis/summary.js';
import type { RequestRecord } from '../../../record/types.js';
import { type PrefillWindow, prefillWindow, recordsInterference } from '../../interference.js';
import type { LoadedRun } from '../../loaded-run.js';
import { chunkGaps } from '../../request.js';
import { stallThresholdMs } from '../../stalls.js';
import { describe } from '../../stats.js';
import { measuredSuccesses } from '../../summary.js';
import { engineTerms } from '../engine-terms.js';
import type { Finding } from '../types.js';
import type { Opts, Rule, Unexplained } from './rule.js';
import { Coverage, fmt, median, runSeries } from './shared.js';

interface Stall {
  id: string;
  from: number;
  to: number;
}

/** A prompt's length: the server's count, else the requested one (0 when neither is known). */
const promptLen = (r: RequestRecord) => r.usage?.prompt_tokens ?? r.input_len ?? 0;

/**
 * The run's long prompts: at least 512 tokens and twice the median prompt, so a run of equal
 * lengths has none and a mixed one has its long class. Only the stall ratio without stalls
 * (`slowed`) compares long prefills with the rest; stalls are attributed to any request's prefill.
 */
function longPrompts(records: readonly RequestRecord[]): {
  cut: number;
  isLong: (r: RequestRecord) => boolean;
} {
  const cut = Math.max(512, 2 * median(records.map(promptLen)));
  return { cut, isLong: (r) => promptLen(r) >= cut };
}

/** How much of a stall the union of prefill windows covers, ms. */
function coveredMs(over: readonly { w: PrefillWindow }[], s: Stall): number {
  const iv = over
    .map((p) => [Math.max(p.w.from, s.from), Math.min(p.w.to, s.to)])
    .sort((a, b) => a[0] - b[0]);
  let total = 0;
  let end = Number.NEGATIVE_INFINITY;
  for (const [a, b] of iv) {
    if (b <= end) continue;
    total += b - Math.max(a, end);
    end = b;
  }
  return total;
}

/**
 * The client's worst event-loop delay while a stall lasted, ms: the lag intervals recorded by
 * `runner/health` that overlap it; 0 when none does. Runs stored before the intervals were
 * recorded have only the run's maximum, which stands in for every stall.
 */
function loopDelayAt(lags: readonly EventLoopLag[] | undefined, runMax: number, s: Stall): number {
  if (!lags) return runMax;
  let worst = 0;
  for (const l of lags) if (l.from_ms < s.to && l.to_ms > s.from && l.max_ms > worst) worst = l.max_ms;
  return worst;
}

/**
 * Pauses in the middle of generation (chunk gaps above the stall threshold), attributed to
 * prefill interference when other requests' prefill windows ({@link prefillWindow}: the
 * server's own prefill time where it reported one) cover at least `stall_prefill_cover` of the
 * gap: every request prefills, so equal-length prompts count too (where the server timed no
 * prefill, only long prompts' [sent, first token] windows count, since that window holds the
 * queueing); else to the client when its event loop lagged at least half the stall at the
 * stall's own time (`summary.client.event_loop_lags`; a run stored without them has only the
 * run's maximum) and most streams live then stalled with it (a client pause freezes every
 * stream at once). Stalls matching neither go to `unexplained`.
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
  // Every request's prefill where the server timed it. The client's [sent, first token] window
  // holds the queueing too, which in a loaded run covers every gap, so it is trusted only for
  // long prompts (their prefill dominates it).
  const prefills = run.records
    .map((r) => ({ id: r.id, w: prefillWindow(r), long: isLong(r) }))
    .filter((p): p is { id: string; w: PrefillWindow; long: boolean } => p.w !== null)
    .filter((p) => p.w.source === 'server' || p.long);
  const loopMax = run.summary.client.event_loop_delay_ms?.max ?? 0;
  const lags = run.summary.client.event_loop_lags;
  const live = new Coverage(rs.map((r) => [r.first_token_at_ms ?? 0, r.last_token_at_ms ?? 0] as const));
  const stalled = new Coverage(stalls.map((x) => [x.from, x.to] as const));
  const byPrefill: { s: Stall; by: string[] }[] = [];
  const byClient: { s: Stall; lag: number }[] = [];
  const other: Stall[] = [];
  for (const s of judged) {
    const over = prefills.filter((p) => p.id !== s.id && p.w.from < s.to && p.w.to > s.from);
    if (over.length && coveredMs(over, s) >= o.stall_prefill_cover * (s.to - s.from)) {
      byPrefill.push({ s, by: over.map((p) => p.id) });
      continue;
    }
    // A client pause freezes every stream at once: most streams live at the gap's midpoint
    // show a stall covering it too, and the event loop lagged at least half as long then.
    const mid = (s.from + s.to) / 2;
    const liveAt = live.at(mid, false);
    const lag = loopDelayAt(lags, loopMax, s);
    if (lag >= 0.5 * (s.to - s.from) && liveAt > 0 && stalled.at(mid, false) >= 0.5 * liveAt)
      byClient.push({ s, lag });
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
  const stallBased = byPrefill.length >= o.min_stalls;
  if (stallBased || slowed) {
    const culprits = [...new Set(byPrefill.flatMap((x) => x.by))];
    const st = byPrefill.map((x) => x.s);
    // With stalls: every decoding request's gaps against every other request's prefill; without,
    // the stall ratio that spoke (decoders' gaps against the long prompts' prefills).
    const shown = stallBased
      ? recordsInterference(
          run.records,
          () => true,
          () => true,
        )
      : inter;
    const ov = shown.gaps_overlapping_ms;
    const cl = shown.gaps_clean_ms;
    const timeline = t(
      shown.intervals_from === 'server'
        ? 'diagnose.stall_prefill_interference.timeline_server'
        : 'diagnose.stall_prefill_interference.timeline_client',
    );
    const longIds = run.records.filter(isLong).map((r) => r.id);
    const stallLines = stallBased
      ? [
          t('diagnose.stall_prefill_interference.ev_threshold', {
            thr: fmt(thr, 0),
            stalls: stalls.length,
            gaps: gaps.length,
            median: fmt(median(gaps), 1),
          }),
          t('diagnose.stall_prefill_interference.ev_overlap_any', {
            n: byPrefill.length,
            stalls: stalls.length,
            pct: fmt((100 * byPrefill.length) / stalls.length, 0),
            server: prefills.filter((p) => p.w.source === 'server').length,
            windows: prefills.length,
          }),
          stallP(st),
          t('diagnose.stall_prefill_interference.ev_culprits_any', { ids: culprits.slice(0, 5).join(', ') }),
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
      symptom: stallBased
        ? symptom(st)
        : t('diagnose.stall_prefill_interference.symptom_slowed', {
            ov: fmt(ov.mean, 2),
            cl: fmt(cl.mean, 2),
            ratio: fmt(inter.stall_ratio, 2),
          }),
      evidence: [
        t(
          stallBased
            ? 'diagnose.stall_prefill_interference.ev_ratio_any'
            : 'diagnose.stall_prefill_interference.ev_ratio',
          {
            ratio: fmt(shown.stall_ratio, 2),
            ov: fmt(ov.mean, 2),
            ovn: ov.n,
            cl: fmt(cl.mean, 2),
            cln: cl.n,
            timeline,
          },
        ),
        t(
          stallBased
            ? 'diagnose.stall_prefill_interference.ev_p99_any'
            : 'diagnose.stall_prefill_interference.ev_p99',
          { ov: fmt(ov.p99, 1), cl: fmt(cl.p99, 1) },
        ),
        ...stallLines,
      ],
      request_ids: stallBased ? [...ids(st), ...culprits.slice(0, 3)] : longIds.slice(0, 5),
      mechanism: t('diagnose.stall_prefill_interference.mechanism', { how: terms.prefillInterference }),
      next: {
        command: 'servelab exp init mixed-input',
        change: t('diagnose.stall_prefill_interference.next', { batchTokens: terms.batchTokens }),
      },
    });
  } else other.push(...byPrefill.map((x) => x.s));
  if (byClient.length >= o.min_stalls) {
    const cs = byClient.map((x) => x.s);
    out.push({
      rule: 'stall_client',
      severity: 'warn',
      runs: [run.id],
      symptom: symptom(cs),
      evidence: [
        t('diagnose.stall_client.ev_threshold', { thr: fmt(thr, 0) }),
        t('diagnose.stall_client.ev_shared', { n: byClient.length }),
        lags
          ? t('diagnose.stall_client.ev_loop_at', {
              max: fmt(Math.max(...byClient.map((x) => x.lag)), 0),
              p50: fmt(median(byClient.map((x) => x.lag)), 0),
              runMax: fmt(loopMax, 0),
            })
          : t('diagnose.stall_client.ev_loop', {
              max: fmt(loopMax, 0),
              p99: fmt(run.summary.client.event_loop_delay_ms?.p99),
            }),
      ],
      request_ids: ids(cs),
      mechanism: t('diagnose.stall_client.mechanism'),
      next: { command: 'servelab exp init baseline', change: t('diagnose.stall_client.next') },
    });
  } else other.push(...byClient.map((x) => x.s));
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

export const rule: Rule = {
  id: 'pauses',
  scope: 'run',
  needs: ['records'],
  emits: ['stall_prefill_interference', 'stall_client', 'stall_preemption'],
  run: (run, { o, unexplained }) => pauses(run, o, unexplained),
};
