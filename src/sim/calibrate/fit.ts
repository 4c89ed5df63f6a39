/**
 * @module sim/calibrate/fit
 * `servelab calibrate`: fit the cost-model constants of one (model, GPU, engine) to a user's own
 * client-side measurements, by least squares against the simulator's own cost model, so that
 * the fitted constants mean what they mean in `engine/cost.ts` and `frontend.ts`.
 *
 * What client-side records determine, and from which runs (every run is classified by its data,
 * not by its label: its peak number of requests in flight and its prompt lengths):
 *
 * - **Low load** (runs with at most one request in flight). Every gap between token j−1 and
 *   token j (j ≥ 2) of a request is one decode step over a context of `prompt + j − 1` tokens,
 *   and the first token of a request leaves `overhead + prefill steps + API work` after it was
 *   sent. With the step shapes known exactly, the cost model predicts each gap and TTFT:
 *   ```
 *   gap_j = T_step(decode, ctx = prompt + j − 1)               weights/η_bw, KV/η_bw_attn_decode
 *   TTFT  = overhead + Σ T_step(prefill chunk) + (t_api_step + t_chunk + t_first)/p
 *                                                              GEMMs/η_gemm, pairs/η_attn_prefill
 *   ```
 *   and a Levenberg–Marquardt fit (log-parameters, relative residuals) gives η_bw (ETA_BW),
 *   η_bw_attn_decode (ETA_BW_ATTN_DECODE, the slope of the gap in the context), η_gemm (the
 *   GPU's ETA_GEMM_BY_FAMILY entry: prefill time linear in the prompt), η_attn_prefill
 *   (ETA_ATTN_PREFILL: the quadratic part) and the front-end overhead (FRONTEND_OVERHEAD_MS:
 *   the TTFT left over). Standard errors are the square roots of the diagonal of
 *   σ²·(JᵀJ)⁻¹, σ² the residual variance.
 * - **Saturated** (a concurrency level whose output rate grew less than 10% over a level at most
 *   2/3 of its concurrency). The API server is then never idle, so consecutive batches of chunks
 *   (chunks that arrive together) leave `(t_api_step + c·t_chunk + f·t_first)/p` apart, c chunks
 *   and f first chunks in the later batch: a linear least squares in t_chunk
 *   (FRONTEND_CHUNK_MS), gaps more than twice the median per-chunk gap (the server idled) left
 *   out.
 *
 * Held at their defaults, because client-side data cannot tell them apart from a fitted one:
 * the per-step, per-layer and sampling overheads (their sum is the intercept of the decode gap,
 * which η_bw's weight read dominates), and the API server's per-batch and first-chunk costs
 * (one saturated level sees batches of one size).
 *
 * What the runs determine is fitted; every other constant keeps its default as the prior, in
 * `held` with what is missing and how to get it, and a fitted constant whose standard error is
 * wider than the prior's spread ({@link PRIOR_REL_SPREAD}) keeps its prior too (`moved: false`;
 * only moved constants go in the profile). Only a set of runs that determines no constant at all
 * is refused ({@link calibrate} throws a UsageError listing every undetermined constant).
 *
 * This module holds the models (the cost model's predictions of what the records saw) and the
 * fit; what the records say is read in `observations.ts`, and the least squares solver is
 * `least-squares.ts`.
 */
import { UsageError } from '../../core/errors.js';
import { type MessageKey, type MessageParams, type T, translator } from '../../i18n/index.js';
import type { RequestRecord } from '../../record/types.js';
import type { Catalogue } from '../catalogue/types.js';
import { type EngineConfig, resolveEngineConfig } from '../engine/config.js';
import { CostModel, type CostOverrides, gemmEfficiency, type StepShape } from '../engine/cost.js';
import { FRONTEND_REQUEST_MS, FRONTEND_STEP_MS, frontendOverheadMs } from '../frontend.js';
import {
  type CalibrationProfileFile,
  type FittedFor,
  PROFILE_CONSTANTS,
  type ProfileConstant,
} from './calibration-file.js';
import { levenbergMarquardt } from './least-squares.js';
import {
  type DecodeObs,
  type GapObs,
  lowLoadObs,
  outputRate,
  type PrefillObs,
  peakInFlight,
  saturatedGaps,
  usable,
} from './observations.js';
import {
  type CalibrationEvidence,
  MIN_CTX_SPREAD,
  prefillDetermined,
  undeterminedProblems,
} from './undetermined.js';

/** The profile's stored reasons are English; a refusal speaks the reader's language (`t`). */
const EN = translator('en');

/** One measured run, as calibrate reads it. */
export interface CalibrationRun {
  id: string;
  label: string;
  /** Every record of the run (warm-up ones are left out here). */
  records: readonly RequestRecord[];
  /** An aggregate result's low-load observations instead of records (`vllm-result.ts`). */
  lowLoad?: { decode: DecodeObs[]; prefill: PrefillObs[]; outputTokS: number | null };
}

/** What the runs were measured on: the configuration the profile is fitted for. */
export interface CalibrationTarget extends FittedFor {
  catalogue?: Catalogue;
  maxNumSeqs?: number;
  maxNumBatchedTokens?: number;
}

/** One fitted constant. */
export interface FittedConstant {
  key: ProfileConstant;
  /** The constant in the source (`ETA_BW`). */
  constant: string;
  value: number;
  /** Standard error (same unit as the value). */
  stderr: number;
  /** The simulator's default for this GPU: the prior the data moves from. */
  default: number;
  /**
   * Whether the profile moves it off the default: false when the data's standard error exceeds
   * the prior's spread ({@link PRIOR_REL_SPREAD}), so the prior is kept and `value` is the default.
   */
  moved: boolean;
  /** The value the data alone gave (equal to `value` when moved). */
  fitted: number;
  unit: string;
  /** Which runs determined it, in words (English, as the profile file keeps it). */
  from: string;
  /** The same as a catalogue message, for the console in the reader's language. */
  from_msg: { key: MessageKey; params: MessageParams };
}

/** The residual error of the fitted model on one metric in one regime. */
export interface Residual {
  metric: 'itl_ms' | 'ttft_ms' | 'batch_gap_ms' | 'output_tok_s';
  regime: 'low-load' | 'saturated';
  n: number;
  /** Root mean square of observed − predicted, in the metric's unit. */
  rmse: number;
  /** Mean and largest |observed − predicted| / observed, %. */
  mean_abs_pct: number;
  max_abs_pct: number;
}

/** How calibrate read one run. */
export interface RunUse {
  id: string;
  label: string;
  /** Peak requests in flight. */
  concurrency: number;
  regime: 'low-load' | 'saturated' | 'unused';
  /** Output tokens per second over the run. */
  output_tok_s: number | null;
}

export interface CalibrationResult {
  fittedFor: FittedFor;
  constants: FittedConstant[];
  /** Constants held at their defaults, with why. */
  held: Record<string, string>;
  residuals: Residual[];
  runs: RunUse[];
  /** The profile file to write. */
  profile: CalibrationProfileFile;
}

// ---- the low-load model -------------------------------------------------------------------

/** The low-load parameters, in this order. */
const LOW: readonly ProfileConstant[] = [
  'eta_bw',
  'eta_bw_attn_decode',
  'eta_gemm',
  'eta_attn_prefill',
  'frontend_overhead_ms',
];

function decodeShape(ctx: number): StepShape {
  return {
    numTokens: 1,
    ctxTokens: ctx,
    attnPairs: ctx + 0.5,
    numSampled: 1,
    numReqs: 1,
    numDecodes: 1,
    decodeCtxTokens: ctx,
  };
}

/** The prefill steps of one prompt alone in the engine: chunks of the token budget. */
function prefillMs(cost: CostModel, o: PrefillObs, budget: number): number {
  let done = o.cached;
  let left = o.n;
  let ms = 0;
  while (left > 0) {
    const n = Math.min(budget, left);
    left -= n;
    ms += cost.stepMs({
      numTokens: n,
      ctxTokens: done,
      attnPairs: n * (done + n / 2),
      numSampled: left === 0 ? 1 : 0,
      numReqs: 1,
      // A one-token prompt step is counted as a decode by the engine, too.
      numDecodes: n === 1 ? 1 : 0,
      decodeCtxTokens: n === 1 ? done : 0,
    });
    done += n;
  }
  return ms;
}

function costOf(cfg: EngineConfig, p: readonly number[]): CostModel {
  const o: CostOverrides = { etaBw: p[0], etaBwAttnDecode: p[1], etaGemm: p[2], etaAttnPrefill: p[3] };
  return new CostModel(
    cfg.model,
    cfg.gpu,
    cfg.tp,
    cfg.dtype,
    cfg.kvCacheDtype,
    { maxNumSeqs: cfg.maxNumSeqs },
    o,
  );
}

/** API work on a request's first chunk when the server is idle (one chunk, one first chunk). */
function firstChunkApiMs(apiServers: number, chunkMs: number): number {
  return (FRONTEND_STEP_MS + chunkMs + FRONTEND_REQUEST_MS) / apiServers;
}

interface LowModel {
  predictDecode: (p: readonly number[]) => number[];
  predictPrefill: (p: readonly number[]) => number[];
}

function lowModel(
  cfg: EngineConfig,
  decode: readonly DecodeObs[],
  prefill: readonly PrefillObs[],
  chunkMs: number,
): LowModel {
  const budget = cfg.maxNumBatchedTokens;
  const api = firstChunkApiMs(cfg.apiServerCount, chunkMs);
  return {
    predictDecode: (p) => {
      const cost = costOf(cfg, p);
      return decode.map((o) => cost.stepMs(decodeShape(o.ctx)));
    },
    predictPrefill: (p) => {
      const cost = costOf(cfg, p);
      return prefill.map((o) => p[4] + prefillMs(cost, o, budget) + api);
    },
  };
}

// ---- the saturated model ------------------------------------------------------------------

function fitChunkMs(
  gaps: readonly GapObs[],
  apiServers: number,
): { value: number; stderr: number; used: GapObs[] } {
  const y = (g: GapObs) => g.gapMs * apiServers - FRONTEND_STEP_MS - g.firsts * FRONTEND_REQUEST_MS;
  const per = gaps.map((g) => y(g) / g.chunks).sort((a, b) => a - b);
  const median = per[Math.floor(per.length / 2)] ?? 0;
  // A gap well above the rest is the server waiting for the engine, not working.
  const used = gaps.filter((g) => y(g) / g.chunks <= 2 * median);
  let sxy = 0;
  let sxx = 0;
  for (const g of used) {
    sxy += g.chunks * y(g);
    sxx += g.chunks * g.chunks;
  }
  const value = sxy / sxx;
  let rss = 0;
  for (const g of used) rss += (y(g) - value * g.chunks) ** 2;
  const stderr = Math.sqrt(rss / Math.max(1, used.length - 1) / sxx);
  return { value, stderr, used };
}

// ---- residual summaries -------------------------------------------------------------------

function residual(
  metric: Residual['metric'],
  regime: Residual['regime'],
  obs: readonly number[],
  pred: readonly number[],
): Residual {
  let se = 0;
  let sumPct = 0;
  let maxPct = 0;
  for (let i = 0; i < obs.length; i++) {
    const d = obs[i] - pred[i];
    se += d * d;
    const pct = obs[i] !== 0 ? Math.abs(d / obs[i]) * 100 : 0;
    sumPct += pct;
    maxPct = Math.max(maxPct, pct);
  }
  const n = obs.length;
  return {
    metric,
    regime,
    n,
    rmse: n ? Math.sqrt(se / n) : 0,
    mean_abs_pct: n ? sumPct / n : 0,
    max_abs_pct: maxPct,
  };
}

// ---- calibrate ----------------------------------------------------------------------------

/**
 * The prior's spread, relative to the default: how far the fitted defaults are trusted to be off
 * for an unseen GPU (the defaults' errors against public measurements, docs/fidelity.md, are
 * within about this). A constant whose standard error from the data is wider keeps its prior.
 */
export const PRIOR_REL_SPREAD = 0.3;

const HELD: Record<string, string> = {
  t_step_ms: 'per-step overheads add to the decode gap as the weight read (η_bw) does: held at the default',
  t_layer_ms: 'as t_step_ms',
  t_sample_ms: 'as t_step_ms',
  t_req_ms: 'per-request overheads: held at the default',
  t_sample_req_ms: 'as t_req_ms',
  frontend_step_ms:
    'one saturated batch size cannot split per-batch from per-chunk API work: held at the default',
  frontend_request_ms: 'as frontend_step_ms',
};

/**
 * Fit the constants of `target` to `runs`.
 * @throws UsageError when the runs cannot determine a constant (every such constant listed,
 *   each with the runs that would), or the target is not a configuration the simulator knows.
 * @example
 * const res = calibrate(runs, { model: 'qwen3-8b', gpu: 'h100', engine: 'vllm-v1', dtype: 'bf16',
 *   tp: 1, kv_cache_dtype: 'auto', api_server_count: 1 });
 * for (const c of res.constants) console.log(c.constant, c.value, '±', c.stderr);
 */
export function calibrate(
  runs: readonly CalibrationRun[],
  target: CalibrationTarget,
  t: T = EN,
): CalibrationResult {
  const cfg = resolveEngineConfig({
    model: target.model,
    gpu: target.gpu,
    tp: target.tp,
    dtype: target.dtype,
    kvCacheDtype: target.kv_cache_dtype,
    engine: target.engine,
    apiServerCount: target.api_server_count,
    catalogue: target.catalogue,
    maxNumSeqs: target.maxNumSeqs,
    maxNumBatchedTokens: target.maxNumBatchedTokens,
  });
  const read = runs.map((r) => {
    const recs = usable(r.records);
    if (r.lowLoad) return { run: r, recs, conc: 1, rate: r.lowLoad.outputTokS };
    return { run: r, recs, conc: peakInFlight(recs), rate: outputRate(recs) };
  });
  const low = read.filter((r) => (r.recs.length && r.conc <= 1) || r.run.lowLoad);
  const loaded = read.filter((r) => r.recs.length && r.conc > 1).sort((a, b) => a.conc - b.conc);
  const saturated = loaded.filter((r) =>
    loaded.some(
      (o) =>
        o !== r && o.conc <= (r.conc * 2) / 3 && o.rate !== null && r.rate !== null && r.rate <= 1.1 * o.rate,
    ),
  );

  const decode: DecodeObs[] = [];
  const prefill: PrefillObs[] = [];
  for (const r of low) {
    const o = r.run.lowLoad ?? lowLoadObs(r.recs);
    decode.push(...o.decode);
    prefill.push(...o.prefill);
  }

  // What the runs determine, all at once: refused in the reader's language, kept in English
  // as the profile's reasons (`held`), as the other stored reasons are.
  const ctxs = decode.map((d) => d.ctx);
  const spread = ctxs.length ? Math.max(...ctxs) - Math.min(...ctxs) : 0;
  const evidence: CalibrationEvidence = {
    lowRunIds: low.map((r) => r.run.id),
    decodeCount: decode.length,
    ctxSpread: spread,
    prefillLens: [...new Set(prefill.map((o) => o.n))].sort((a, b) => a - b),
    loaded,
    saturated: saturated.length > 0,
  };
  const problems = undeterminedProblems(evidence, t);
  // Fit what the data determines; the rest keeps its default (the prior) with why. Refused only
  // when nothing at all can be fitted.
  const free: number[] = [];
  if (decode.length) free.push(0);
  if (decode.length && spread >= MIN_CTX_SPREAD) free.push(1);
  if (prefillDetermined(evidence.prefillLens)) free.push(2, 3);
  if (prefill.length) free.push(4);
  if (!free.length && !saturated.length) throw new UsageError(problems);
  const held: Record<string, string> = { ...HELD };
  for (const p of undeterminedProblems(evidence, EN))
    for (const key of (p.path ?? '').split(' (')[0].split(', ')) held[key] = `${p.message}; ${p.hint}`;

  // Saturated first: the first chunk's API work at low load uses the chunk cost.
  const apiServers = cfg.apiServerCount;
  const gaps = saturated.flatMap((r) => saturatedGaps(r.recs));
  const chunk = saturated.length
    ? fitChunkMs(gaps, apiServers)
    : { value: PROFILE_CONSTANTS.frontend_chunk_ms.default, stderr: 0, used: [] as GapObs[] };

  const defaults = [
    PROFILE_CONSTANTS.eta_bw.default,
    PROFILE_CONSTANTS.eta_bw_attn_decode.default,
    gemmEfficiency(cfg.gpu),
    PROFILE_CONSTANTS.eta_attn_prefill.default,
    frontendOverheadMs(),
  ];
  const model = lowModel(cfg, decode, prefill, chunk.value);
  const full = (q: readonly number[]) => {
    const p = [...defaults];
    free.forEach((k, i) => {
      p[k] = q[i];
    });
    return p;
  };
  const lm = free.length
    ? levenbergMarquardt(
        (q) => {
          const p = full(q);
          const d = model.predictDecode(p);
          const f = model.predictPrefill(p);
          const out: number[] = new Array(d.length + f.length);
          for (let i = 0; i < d.length; i++) out[i] = (decode[i].gapMs - d[i]) / decode[i].gapMs;
          for (let i = 0; i < f.length; i++)
            out[d.length + i] = (prefill[i].ttftMs - f[i]) / prefill[i].ttftMs;
          return out;
        },
        free.map((k) => defaults[k]),
      )
    : { p: [] as number[], stderr: [] as number[] };
  // The prior is kept where the data's error is wider than the prior's spread.
  // As many observations as free constants (an aggregate file's means): exactly determined, the
  // error is not estimable (NaN, null in the profile) and the data's values are taken.
  const dof = decode.length + prefill.length - free.length;
  // Kept too where the data agree with the prior (within 2 standard errors): nothing to move.
  const agrees = (v: number, se: number, prior: number) =>
    Math.abs(v - prior) <= Math.max(Number.isFinite(se) ? 2 * se : 0, 1e-6 * prior);
  const keep = free.map(
    (k, i) =>
      (dof > 0 && !(lm.stderr[i] <= PRIOR_REL_SPREAD * defaults[k])) ||
      agrees(lm.p[i], dof > 0 ? lm.stderr[i] : Number.NaN, defaults[k]),
  );
  const fit = { p: full(lm.p.map((v, i) => (keep[i] ? defaults[free[i]] : v))) };

  const lens = evidence.prefillLens;
  const lensParams = { n: lens.length, from: lens[0], to: lens[lens.length - 1] };
  const fromMsg: Partial<Record<ProfileConstant, FittedConstant['from_msg']>> = {
    eta_bw: { key: 'sim.calibrate.from.decode', params: { n: decode.length } },
    eta_bw_attn_decode: { key: 'sim.calibrate.from.decode_ctx', params: { tokens: spread } },
    eta_gemm: { key: 'sim.calibrate.from.prefill_lens', params: lensParams },
    eta_attn_prefill: { key: 'sim.calibrate.from.prefill_lens', params: lensParams },
    frontend_overhead_ms: { key: 'sim.calibrate.from.prefill', params: { n: prefill.length } },
    frontend_chunk_ms: {
      key: 'sim.calibrate.from.chunk',
      params: { n: chunk.used.length, levels: saturated.map((r) => `c=${r.conc}`).join(', ') },
    },
  };
  const from = (key: ProfileConstant) => {
    const msg = fromMsg[key] ?? { key: 'sim.calibrate.from.none' as const, params: {} };
    return { from: EN(msg.key, msg.params), from_msg: msg };
  };
  const constants: FittedConstant[] = free.map((k, i) => ({
    key: LOW[k],
    constant: PROFILE_CONSTANTS[LOW[k]].constant,
    value: fit.p[k],
    fitted: lm.p[i],
    stderr: dof > 0 ? lm.stderr[i] : Number.NaN,
    default: defaults[k],
    moved: !keep[i],
    unit: PROFILE_CONSTANTS[LOW[k]].unit,
    ...from(LOW[k]),
  }));
  if (saturated.length) {
    const prior = PROFILE_CONSTANTS.frontend_chunk_ms.default;
    const moved = chunk.stderr <= PRIOR_REL_SPREAD * prior && !agrees(chunk.value, chunk.stderr, prior);
    constants.push({
      key: 'frontend_chunk_ms',
      constant: 'FRONTEND_CHUNK_MS',
      value: moved ? chunk.value : prior,
      fitted: chunk.value,
      stderr: chunk.stderr,
      default: prior,
      moved,
      unit: 'ms',
      ...from('frontend_chunk_ms'),
    });
  }
  for (const c of constants)
    if (!c.moved)
      held[c.key] = agrees(c.fitted, c.stderr, c.default)
        ? `kept the prior ${Number(c.default.toPrecision(4))}: the data agree with it (fitted ${Number(c.fitted.toPrecision(4))} ± ${Number(c.stderr.toPrecision(2))})`
        : `kept the prior ${Number(c.default.toPrecision(4))}: the data's standard error ${Number(c.stderr.toPrecision(2))} exceeds the prior's spread (${PRIOR_REL_SPREAD * 100}%)`;

  // Residuals, in the metrics' own units.
  const pd = model.predictDecode(fit.p);
  const pf = model.predictPrefill(fit.p);
  const work = (g: GapObs) =>
    (FRONTEND_STEP_MS + g.chunks * chunk.value + g.firsts * FRONTEND_REQUEST_MS) / apiServers;
  const satRates = saturated.map((r) => {
    const g = saturatedGaps(r.recs);
    const chunks = g.reduce((s, x) => s + x.chunks, 0);
    const ms = g.reduce((s, x) => s + x.gapMs, 0);
    const predMs = g.reduce((s, x) => s + work(x), 0);
    return { obs: (chunks / ms) * 1e3, pred: (chunks / predMs) * 1e3 };
  });
  const residuals: Residual[] = [
    residual(
      'itl_ms',
      'low-load',
      decode.map((d) => d.gapMs),
      pd,
    ),
    residual(
      'ttft_ms',
      'low-load',
      prefill.map((o) => o.ttftMs),
      pf,
    ),
    residual(
      'batch_gap_ms',
      'saturated',
      chunk.used.map((g) => g.gapMs),
      chunk.used.map(work),
    ),
    residual(
      'output_tok_s',
      'saturated',
      satRates.map((x) => x.obs),
      satRates.map((x) => x.pred),
    ),
  ];

  const fittedFor: FittedFor = {
    model: cfg.model.name,
    gpu: cfg.gpu.name,
    engine: cfg.profile.engine,
    dtype: cfg.dtype,
    tp: cfg.tp,
    kv_cache_dtype: cfg.kvCacheDtype,
    api_server_count: cfg.apiServerCount,
  };
  const runUse: RunUse[] = read.map((r) => ({
    id: r.run.id,
    label: r.run.label,
    concurrency: r.conc,
    regime: low.includes(r) ? 'low-load' : saturated.includes(r) ? 'saturated' : 'unused',
    output_tok_s: r.rate,
  }));
  const round = (x: number) => Number(x.toPrecision(6));
  const profile: CalibrationProfileFile = {
    servelab_profile: 1,
    fitted_for: fittedFor,
    constants: Object.fromEntries(
      constants
        .filter((c) => c.moved)
        .map((c) => [
          c.key,
          {
            value: round(c.value),
            stderr: Number.isFinite(c.stderr) ? round(c.stderr) : null,
            constant: c.constant,
            default: round(c.default),
            unit: c.unit,
            from: c.from,
          },
        ]),
    ),
    held,
    residuals: residuals.map((r) => ({
      ...r,
      rmse: round(r.rmse),
      mean_abs_pct: round(r.mean_abs_pct),
      max_abs_pct: round(r.max_abs_pct),
    })),
    runs: runUse.map((r) => r.id),
  };
  return { fittedFor, constants, held, residuals, runs: runUse, profile };
}
