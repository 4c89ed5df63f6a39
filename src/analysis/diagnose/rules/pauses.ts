/**
 * @module analysis/diagnose/rules/pauses
 * Pauses in the middle of generation (`pauses`): stalls attributed to long-prefill
 * interference, to the client, or to preemption; the rest go to `unexplained`.
 */
import type { RequestRecord } from '../../../record/types.js';
import { clientPrefillWindow, recordsInterference } from '../../interference.js';
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

export const rule: Rule = {
  id: 'pauses',
  scope: 'run',
  needs: ['records'],
  emits: ['stall_prefill_interference', 'stall_client', 'stall_preemption'],
  run: (run, { o, unexplained }) => pauses(run, o, unexplained),
};
