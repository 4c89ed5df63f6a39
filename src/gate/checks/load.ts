/**
 * Gate checks, group "load" (docs/gate.md, group 10): quality and latency against the old
 * version. Both run the two versions together ({@link PairCheck}).
 *
 * 10.1 measures through the one measurement path (`pipeline/measure` `measureOn`, the client,
 * runner, scrape and validity verdict `servelab run` uses) and judges with the A/B machinery of
 * `exp` (`exp/kinds/ab` `compareSides`: requests paired by index across counterbalanced blocks,
 * a block-clustered bootstrap 95% CI, Holm's correction across the metrics). 10.2 asks the fixed
 * question set (`workload/questions`) through `exp/quality`'s sampler and compares the share
 * answered right with a paired bootstrap CI.
 */

import { findMaxLevel } from '../../analysis/capacity.js';
import { requestMetrics } from '../../analysis/index.js';
import { meetsSlo, type Slo } from '../../analysis/slo.js';
import { tokenizeRemote } from '../../client/engine-api.js';
import { bootstrapDelta, percentileStat } from '../../exp/comparison-stats.js';
import { servelabVersion } from '../../exp/experiment-record.js';
import { compareSides, type SideMetric } from '../../exp/kinds/ab.js';
import type { AbMetricResult } from '../../exp/kinds/ab-result.js';
import { fetchQualityOutputs, type QualityOutput } from '../../exp/quality.js';
import type { T } from '../../i18n/index.js';
import { clientOptionsOf } from '../../pipeline/client-options.js';
import type { EngineEndpoint } from '../../pipeline/endpoint.js';
import { type Measurement, measureOn } from '../../pipeline/measure.js';
import type { RequestRecord } from '../../record/types.js';
import type { LoadMode } from '../../runner/load.js';
import { Rng } from '../../runtime/rng.js';
import { arrivalOffsetsMs } from '../../schedule/index.js';
import { buildWorkload } from '../../workload/index.js';
import { isCorrect, QUESTIONS, questionPrompt } from '../../workload/questions.js';
import type { RequestSpec } from '../../workload/types.js';
import { endpointOf } from '../load/endpoint.js';
import type { Check, CheckContext, Evidence, GateTarget, PairCheck, SideResult } from '../types.js';

/** The load levels, as fractions of the old version's maximum goodput (issue 13). */
export const LOAD_LEVELS = [0.5, 0.8] as const;
/** A latency percentile may rise by at most this much (percent of the old value). */
export const MAX_LATENCY_RISE_PCT = 10;
/** Family-wise error rate of the comparison (Holm). */
export const ALPHA = 0.05;
const RESAMPLES = 2000;
/** Counterbalanced blocks per side and level (old new, new old). */
const BLOCKS = 2;
/** Measured requests per block. */
const BLOCK_REQUESTS = 24;
/**
 * Validity reasons that leave a measurement fit for what 10.1 compares: each request's TTFT, TPOT
 * and whether it met the SLO, timed from its own send. Generator lateness moves sends, not the
 * latency measured from them (and a closed loop has no schedule to be late for); Little's law over
 * a few dozen requests judges the load's ramp and drain; token counts and cache hits do not enter
 * the metrics. What voids a measurement is a client or simulator artefact inside the measured
 * latencies (event-loop lag, a saturated client CPU, a simulator behind real time), usage too thin
 * to give TPOT, or an error rate that leaves the latencies of too few requests.
 */
const COMPARES_DESPITE = new Set(['lateness', 'littles_law', 'token_mismatch', 'cache_hits']);

/** Whether `m` is valid for what 10.1 compares (its tolerated reasons go to `evidence`). */
function fitToCompare(m: Measurement, what: string, evidence: Evidence[]): boolean {
  if (m.validity.some((v) => !COMPARES_DESPITE.has(v.code))) return false;
  if (m.validity.length) evidence.push({ note: `${what}: ${m.validity.map((v) => v.message).join('; ')}` });
  return true;
}

/** Largest closed-loop concurrency the maximum-goodput search tries. */
export const MAX_SEARCH_CONCURRENCY = 64;
/** Share of requests meeting the SLO for a concurrency to count in the maximum-goodput search. */
const SEARCH_ATTAINMENT = 0.9;
/** The SLO, from the old version alone: this many times its TTFT and TPOT p50 at concurrency 1. */
const SLO_TTFT_FACTOR = 3;
const SLO_TPOT_FACTOR = 1.5;
const INPUT_LEN = 128;
const OUTPUT_LEN = 32;

/** What both sides are measured with: the workload, the SLO and how to send. */
interface Bench {
  old: { target: GateTarget; endpoint: EngineEndpoint };
  next: { target: GateTarget; endpoint: EngineEndpoint };
  ctx: CheckContext;
}

/** Synthetic prompts of {@link INPUT_LEN} tokens, counted by the old version's tokenizer. */
async function specsFor(side: Bench['old'], count: number, seed: number): Promise<RequestSpec[]> {
  const { endpoint: e, target } = side;
  const sim = e.sim;
  const w = await e.settle(
    buildWorkload(
      { seed, count, model: target.model, inputLen: INPUT_LEN, outputLen: OUTPUT_LEN },
      {
        tokenizeRemote: sim
          ? (text) => sim.countTokens(text, target.model)
          : tokenizeRemote(e.baseUrl, target.model, target.apiKey, {}, e.dispatcher ?? undefined),
      },
    ),
  );
  return w.specs.map((s, i) => ({ ...s, index: i }));
}

/** One run on one side through the measurement pipeline. */
function measureSide(
  side: Bench['old'],
  ctx: CheckContext,
  label: string,
  specs: readonly RequestSpec[],
  load: LoadMode,
  slo: Slo | null,
  warmup = 0,
  warmupSpecs?: readonly RequestSpec[],
): Promise<Measurement> {
  return measureOn(
    side.endpoint,
    {
      plan: { label, specs, load, warmup, warmupSpecs, failFast: false },
      client: clientOptionsOf(
        {
          endpoint: 'chat',
          model: side.target.model,
          stream: true,
          apiKey: side.target.apiKey,
          // ctx.timeoutMs is `--timeout` seconds × 1000, so this gives back the seconds exactly.
          timeoutS: ctx.timeoutMs / 1000,
        },
        { maxTokens: OUTPUT_LEN, temperature: 0, ignoreEos: true },
      ),
      slo,
      thresholds: [],
      targetRateRps: null,
      config: { gate: 'load.latency-goodput', role: side.target.role, label },
    },
    { env: {}, version: servelabVersion() ?? 'unknown', signal: ctx.signal },
  );
}

const pct = (x: number | null | undefined, d = 1) => (x === null || x === undefined ? 'null' : x.toFixed(d));

/** Skip both sides: the run at `level` on `side` is invalid by servelab's own verdict. */
function inconclusive(
  t: T,
  side: string,
  level: string,
  m: Measurement,
): { old: SideResult; new: SideResult } {
  const reason = t('gate-load.skip.invalid', {
    side,
    level,
    reasons: m.validity.map((v) => v.code).join(', '),
  });
  const ev: Evidence[] = [{ note: reason, received: JSON.stringify(m.validity).slice(0, 2048) }];
  return {
    old: { status: 'skipped', reason, evidence: ev },
    new: { status: 'skipped', reason, evidence: ev },
  };
}

/**
 * Metrics compared at one level (its requests are those indexed `from` ≤ i < `to`): TTFT and
 * TPOT p50 and p99, and the share meeting the SLO.
 */
function levelMetrics(level: string, from: number, to: number, slo: Slo): SideMetric[] {
  const mine = (r: RequestRecord) => r.index >= from && r.index < to;
  const out: SideMetric[] = [];
  for (const metric of ['ttft_ms', 'tpot_ms'] as const)
    for (const p of [50, 99])
      out.push({
        name: `${metric} p${p} @${level}`,
        value: (r) => (mine(r) ? requestMetrics(r)[metric] : undefined),
        stat: percentileStat(p),
      });
  // Goodput at a fixed offered rate is that rate × the share meeting the SLO: comparing the
  // share on the same schedule compares goodput. A failed request counts as not meeting it.
  out.push({
    name: `slo_met @${level}`,
    value: (r) => (mine(r) ? (meetsSlo(r, requestMetrics(r), slo) ? 1 : 0) : undefined),
    higherIsBetter: true,
    withFailures: true,
  });
  return out;
}

const latencyGoodput: PairCheck = {
  kind: 'pair',
  id: 'load.latency-goodput',
  number: '10.1',
  group: 'load',
  title: 'gate-load.title.latency-goodput',
  probe: false,
  async run(oldT, newT, ctx) {
    const { t } = ctx;
    const bench: Bench = {
      old: { target: oldT, endpoint: endpointOf(oldT) },
      next: { target: newT, endpoint: endpointOf(newT) },
      ctx,
    };
    const evidence: Evidence[] = [];
    // 1. The SLO, from the old version at concurrency 1 (after a warm-up).
    const calib = await specsFor(bench.old, 12, ctx.seed + 1);
    const base = await measureSide(
      bench.old,
      ctx,
      'slo',
      calib.slice(4),
      { kind: 'closed', concurrency: 1, requests: 8 },
      null,
      4,
      calib.slice(0, 4),
    );
    if (!fitToCompare(base, 'c=1', evidence)) return inconclusive(t, 'old', 'c=1', base);
    const ttft50 = base.summary.ttft_ms.p50;
    const tpot50 = base.summary.tpot_ms.p50;
    if (ttft50 === null || tpot50 === null) return inconclusive(t, 'old', 'c=1', base);
    const slo: Slo = {
      ttft_ms: Math.ceil(ttft50 * SLO_TTFT_FACTOR),
      tpot_ms: Math.ceil(tpot50 * SLO_TPOT_FACTOR * 100) / 100,
    };
    // 2. The old version's maximum goodput: the largest closed-loop concurrency whose requests
    // meet the SLO (pipeline/capacity's search), and the goodput measured there.
    let best: { rps: number; c: number } | null = null;
    let invalid: Measurement | null = null;
    let probeSeed = ctx.seed + 100;
    await findMaxLevel(
      async (c) => {
        const specs = await specsFor(bench.old, Math.max(12, 3 * c), probeSeed++);
        return measureSide(
          bench.old,
          ctx,
          `search c=${c}`,
          specs,
          { kind: 'closed', concurrency: c, requests: specs.length },
          slo,
        );
      },
      {
        rule: { attainment: SEARCH_ATTAINMENT },
        // The search goes on past an invalid level; the check is then inconclusive (below).
        invalid: null,
        onProbe: (c, m, { ok }) => {
          // A closed-loop level has no offered rate for generator lateness to miss: each request
          // goes when a slot frees, so a late one only lowers the concurrency a little; and a level
          // of 3c requests is too short for Little's law to hold through its ramp and drain. The
          // goodput found stays the server's either way; it only places the two compared levels,
          // which must be valid themselves. Any other reason makes the search inconclusive.
          if (!fitToCompare(m, `search c=${c}`, evidence)) invalid ??= m;
          const rps = m.summary.goodput.rps;
          if (ok && rps !== null && (!best || rps > best.rps)) best = { rps, c };
        },
      },
      { max: MAX_SEARCH_CONCURRENCY },
    );
    if (invalid) return inconclusive(t, 'old', 'search', invalid);
    const top = best as { rps: number; c: number } | null;
    if (!top) {
      const reason = t('gate-load.skip.no-goodput', {
        ttft: slo.ttft_ms ?? 'null',
        tpot: slo.tpot_ms ?? 'null',
      });
      const r: SideResult = { status: 'skipped', reason, evidence };
      return { old: r, new: r };
    }
    evidence.push({
      note: t('gate-load.evidence.max-goodput', {
        rps: pct(top.rps, 2),
        c: top.c,
        ttft: slo.ttft_ms ?? 'null',
        tpot: slo.tpot_ms ?? 'null',
      }),
    });
    // 3. The same seeded schedule on both sides at each level, in counterbalanced blocks.
    const records: Record<'old' | 'new', RequestRecord[]> = { old: [], new: [] };
    const metrics: SideMetric[] = [];
    const warmupSpecs = await specsFor(bench.old, 16, ctx.seed + 7);
    const warmed = { old: false, new: false };
    let offset = 0;
    for (const [li, level] of LOAD_LEVELS.entries()) {
      const name = `${Math.round(level * 100)}%`;
      const rate = level * top.rps;
      const specs = await specsFor(bench.old, BLOCKS * BLOCK_REQUESTS, ctx.seed + 200 + li);
      for (let k = 0; k < BLOCKS; k++) {
        const block = specs.slice(k * BLOCK_REQUESTS, (k + 1) * BLOCK_REQUESTS);
        const arrivalsMs = arrivalOffsetsMs({
          rateRps: rate,
          arrival: 'poisson',
          count: block.length,
          seed: ctx.seed + 300 + li * BLOCKS + k,
        });
        const order = k % 2 === 0 ? (['old', 'new'] as const) : (['new', 'old'] as const);
        for (const side of order) {
          const s = side === 'old' ? bench.old : bench.next;
          const m = await measureSide(
            s,
            ctx,
            `${name} block ${k + 1}`,
            block,
            { kind: 'open', arrivalsMs, maxConcurrency: null },
            slo,
            warmed[side] ? 0 : warmupSpecs.length,
            warmed[side] ? undefined : warmupSpecs,
          );
          warmed[side] = true;
          if (!fitToCompare(m, `${side} ${name} block ${k + 1}`, evidence))
            return inconclusive(t, side, name, m);
          // Requests are paired by index across the levels: give each level its own range.
          for (const r of m.result.records) records[side].push({ ...r, index: r.index + offset });
        }
      }
      metrics.push(...levelMetrics(name, offset, offset + specs.length, slo));
      offset += specs.length;
    }
    const per = BLOCK_REQUESTS;
    const results = compareSides(
      records.old,
      records.new,
      metrics,
      {
        alpha: ALPHA,
        minEffectPct: MAX_LATENCY_RISE_PCT,
        resamples: RESAMPLES,
        blockOf: (i) => Math.floor(i / per),
      },
      new Rng(ctx.seed).fork('gate-load'),
    );
    for (const r of results)
      evidence.push({
        note: t('gate-load.evidence.metric', {
          metric: r.metric,
          old: pct(r.mean_a, 2),
          new: pct(r.mean_b, 2),
          pct: pct(r.delta_pct),
          low: pct(r.ci_low, 2),
          high: pct(r.ci_high, 2),
          p: r.p_holm.toFixed(4),
        }),
      });
    const worse = (r: AbMetricResult) => r.significant && r.better === 'a';
    const slower = results.filter((r) => worse(r) && !r.metric.startsWith('slo_met'));
    const dropped = results.filter((r) => worse(r) && r.metric.startsWith('slo_met'));
    const sideObs = (which: 'a' | 'b') =>
      Object.fromEntries(
        results.map((r) => {
          const v = r[which === 'a' ? 'mean_a' : 'mean_b'];
          return [r.metric, v === null ? null : Math.round(v * 1000) / 1000];
        }),
      );
    const oldRes: SideResult = {
      status: 'pass',
      observed: { ...sideObs('a'), max_goodput_rps: Math.round(top.rps * 100) / 100 },
      evidence: [],
    };
    const reasons: string[] = [];
    if (slower.length)
      reasons.push(
        t('gate-load.load.regressed', {
          metrics: slower.map((r) => `${r.metric} +${pct(r.delta_pct)}%`).join(', '),
          limit: MAX_LATENCY_RISE_PCT,
          alpha: ALPHA,
        }),
      );
    if (dropped.length)
      reasons.push(
        t('gate-load.load.goodput-dropped', {
          levels: dropped.map((r) => r.metric.split('@')[1]).join(', '),
        }),
      );
    const newRes: SideResult = {
      status: reasons.length ? 'fail' : 'pass',
      ...(reasons.length ? { reason: reasons.join('; ') } : {}),
      observed: sideObs('b'),
      evidence,
    };
    return { old: oldRes, new: newRes };
  },
};

/** Tokens a question's answer may take (a reasoning model thinks first). */
const ANSWER_TOKENS = 256;

/** The question set as samples. */
const QUESTION_SPECS: RequestSpec[] = QUESTIONS.map((q, index) => ({
  index,
  messages: [{ role: 'user', content: questionPrompt(q) }],
  input_len: null,
  output_len: ANSWER_TOKENS,
}));

/** Ask one side every question (greedy, non-streaming; `exp/quality`'s sampler). */
function answers(target: GateTarget, ctx: CheckContext): Promise<QualityOutput[]> {
  const e = endpointOf(target);
  return e.settle(
    fetchQualityOutputs(
      {
        baseUrl: target.baseUrl,
        model: target.model,
        endpoint: 'chat',
        headers: {},
        apiKey: target.apiKey,
        timeoutMs: ctx.timeoutMs,
        dispatcher: target.dispatcher,
      },
      QUESTION_SPECS,
      ctx.signal,
    ),
  );
}

const qualityQuestions: PairCheck = {
  kind: 'pair',
  id: 'load.quality-questions',
  number: '10.2',
  group: 'load',
  title: 'gate-load.title.quality-questions',
  probe: false,
  async run(oldT, newT, ctx) {
    const { t } = ctx;
    const outs = { old: await answers(oldT, ctx), new: await answers(newT, ctx) };
    const score = (o: readonly QualityOutput[]) => o.map((x, i) => (isCorrect(QUESTIONS[i], x.text) ? 1 : 0));
    const a = score(outs.old);
    const b = score(outs.new);
    const right = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
    const wrong = (side: 'old' | 'new', xs: number[]): Evidence[] =>
      outs[side]
        .filter((_, i) => xs[i] === 0)
        .slice(0, 5)
        .map((o) => ({
          note: t('gate-load.evidence.wrong', {
            id: QUESTIONS[o.index].id,
            answer: QUESTIONS[o.index].answer,
          }),
          sent: questionPrompt(QUESTIONS[o.index]),
          received: o.text ?? o.error ?? '',
        }));
    const side = (name: 'old' | 'new', xs: number[]): SideResult => {
      const errors = outs[name].filter((o) => o.text === null).length;
      return errors === xs.length
        ? {
            status: 'fail',
            reason: t('gate-load.load.quality-failed', { side: name, errors }),
            observed: { right: 0, of: xs.length },
            evidence: wrong(name, xs),
          }
        : { status: 'pass', observed: { right: right(xs), of: xs.length }, evidence: wrong(name, xs) };
    };
    const oldRes = side('old', a);
    const newRes = side('new', b);
    if (oldRes.status === 'fail' || newRes.status === 'fail') return { old: oldRes, new: newRes };
    if (right(a) === 0) {
      const reason = t('gate-load.skip.no-correct', { n: a.length });
      return {
        old: { ...oldRes, status: 'skipped', reason },
        new: { ...newRes, status: 'skipped', reason },
      };
    }
    // Paired by question: the share answered right, new − old, with a bootstrap 95% CI.
    const d = bootstrapDelta(a, b, RESAMPLES, new Rng(ctx.seed).fork('gate-questions'), true);
    const observed = { ...(newRes.observed as object), delta: d.delta, ci_low: d.ci_low, ci_high: d.ci_high };
    // new ≥ old − the CI: a drop counts only when the whole interval lies below 0.
    if (d.ci_high !== null && d.ci_high < 0)
      return {
        old: oldRes,
        new: {
          status: 'fail',
          reason: t('gate-load.load.quality-dropped', {
            new: right(b),
            old: right(a),
            n: b.length,
            delta: pct(d.delta, 3),
            low: pct(d.ci_low, 3),
            high: pct(d.ci_high, 3),
          }),
          observed,
          evidence: newRes.evidence,
        },
      };
    return { old: oldRes, new: { ...newRes, observed } };
  },
};

export const checks: Check[] = [latencyGoodput, qualityQuestions];
