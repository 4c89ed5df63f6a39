/**
 * @module sim/fidelity/fit-data
 * Replays the public vLLM v0.15.1 experiments of `../shared/fit-data/` (issue 26; see its
 * README) through the fast virtual-time driver (`simulateDetailed`) with each experiment's own
 * settings, and compares per stage and for the whole run with the measured latencies:
 * - model, TP, `max_num_batched_tokens`, `max_num_seqs`, `max_model_len`, `gpu_memory_utilization`
 *   and FP8 weights from the experiment (vLLM's defaults otherwise: prefix caching and chunked
 *   prefill on); the CPU KV offload of some runs is not modelled;
 * - load: inference-perf's multi-stage `constant` load (`schedule/stages`, Poisson-rescaled gaps,
 *   the next stage 1 s after the previous one drains);
 * - data: inference-perf's shared-prefix groups as that commit really sent them (10 × 10 prompts
 *   cycling per stage, `workload/shared-prefix`), streaming completions with
 *   `max_tokens = output_len` and ignore_eos; prompt lengths scaled by {@link PROMPT_LENGTH_SCALE}
 *   (the README: re-tokenized random text runs 4–5% longer than the spec).
 * `itl_mean` is derived as the README derives the measured one. Pure: the caller reads the files.
 */
import { requestMetrics } from '../../analysis/request.js';
import { mean, percentile } from '../../analysis/stats.js';
import { hashString } from '../../runtime/rng.js';
import { stageOffsetsMs } from '../../schedule/stages.js';
import { sharedPrefixTokenIds } from '../../workload/shared-prefix.js';
import { type PlanRequest, simulateDetailed } from '../batch-driver.js';
import type { CalibrationProfile } from '../calibrate/calibration-file.js';
import { BUILTIN_MODELS } from '../catalogue/builtin.js';
import { resolveEngineConfig } from '../engine/config.js';
import type { CostOverrides } from '../engine/cost.js';
import type { FrontendOverrides } from '../frontend.js';

/** Observed prompt tokens ÷ specified (the fit-data README: "about 4–5% longer"). */
export const PROMPT_LENGTH_SCALE = 1.045;
/** inference-perf's `load.interval` between stages, s (its default; the README: "plus 1 s"). */
export const STAGE_PAUSE_S = 1;

export const FIT_METRICS = [
  'e2e_mean',
  'e2e_p90',
  'e2e_p99',
  'ttft_mean',
  'ttft_p90',
  'ttft_p99',
  'itl_mean',
] as const;
export type FitMetric = (typeof FIT_METRICS)[number];

/** The fields of one `experiments.json` entry that the replay reads. */
export interface FitExperiment {
  experiment: string;
  exp_id: string;
  model_hf_id: string;
  tp: number;
  precision_label?: string;
  complete: boolean;
  vllm: {
    max_num_batched_tokens: number;
    max_num_seqs: number;
    max_model_len: number;
    gpu_memory_utilization: number;
    cpu_offload?: boolean;
  };
  workload: { effective_prefix_sharing: { num_groups: number; num_prompts_per_group: number } };
  /** vLLM's KV-cache block count as the run's log reported it (known for every experiment here). */
  kv_cache?: { total_kv_blocks?: number; cpu_kv_blocks?: number };
  stages: {
    stage_index: number;
    rate_rps: number;
    duration_s: number;
    num_requests: number;
    input_tokens_spec: { system_prompt_len: number; question_len: number };
    output_tokens_spec: { max_tokens: number };
  }[];
}

/** One simulated-vs-measured figure. */
export interface FitComparison {
  experiment: string;
  /** Load stage (0, 1) or -1 for the whole run. */
  stage: number;
  metric: FitMetric;
  actual: number;
  simulated: number;
  /** (simulated − actual) / actual, percent. */
  errorPct: number;
}

/** `actual.csv` → experiment → stage → metric → ms. */
export type ActualTable = Map<string, Map<number, Map<string, number>>>;

/** Parse `actual.csv` (`experiment,stage,metric,actual,source`). */
export function parseActualCsv(text: string): ActualTable {
  const out: ActualTable = new Map();
  for (const line of text.split('\n').slice(1)) {
    const [exp, stage, metric, actual] = line.split(',');
    if (!exp || actual === undefined) continue;
    const byStage = out.get(exp) ?? new Map<number, Map<string, number>>();
    out.set(exp, byStage);
    const byMetric = byStage.get(Number(stage)) ?? new Map<string, number>();
    byStage.set(Number(stage), byMetric);
    byMetric.set(metric, Number(actual));
  }
  return out;
}

/** The catalogue model whose Hugging Face id (or its FP8 re-packaging) is `hfId`. */
export function catalogueModelFor(hfId: string): string | null {
  const want = hfId.toLowerCase();
  for (const m of Object.values(BUILTIN_MODELS)) if (m.hf_id.toLowerCase() === want) return m.name;
  return null;
}

/** Per-stage and whole-run metrics of a replay, ms. */
export type SimulatedMetrics = Map<number, Record<FitMetric, number>>;

function metricsOf(e2e: number[], ttft: number[], outLens: number[]): Record<FitMetric, number> {
  e2e.sort((a, b) => a - b);
  ttft.sort((a, b) => a - b);
  const e2eMean = mean(e2e) ?? Number.NaN;
  const ttftMean = mean(ttft) ?? Number.NaN;
  const outMean = mean(outLens) ?? Number.NaN;
  return {
    e2e_mean: e2eMean,
    e2e_p90: percentile(e2e, 90) ?? Number.NaN,
    e2e_p99: percentile(e2e, 99) ?? Number.NaN,
    ttft_mean: ttftMean,
    ttft_p90: percentile(ttft, 90) ?? Number.NaN,
    ttft_p99: percentile(ttft, 99) ?? Number.NaN,
    // The README's (and ground_truth.py's) derivation of the measured itl_mean.
    itl_mean: (e2eMean - ttftMean) / (outMean - 1),
  };
}

/** How to replay: the seed, a shorter run for the fit's search, coefficients to try. */
export interface ReplayOptions {
  seed?: number;
  /**
   * Fraction of every stage to replay (1 = all): each stage keeps its rate and runs
   * `scale × duration`, so it sends `scale ×` its requests. The fit's search uses a fraction.
   */
  scale?: number;
  /** Cost-model and API-server constants to use instead of the committed fitted ones. */
  cost?: CostOverrides;
  frontend?: FrontendOverrides;
}

/** A replay's metrics and the engine's prefix-cache hit rate (hit tokens ÷ queried prompt tokens). */
export interface ReplayResult {
  metrics: SimulatedMetrics;
  prefixHitRate: number | null;
  requests: number;
}

/**
 * Replay one experiment in virtual time. Deterministic from `seed`.
 * @throws Error when its model is not in the catalogue.
 */
export function replayExperiment(x: FitExperiment, seed = 1): SimulatedMetrics {
  return replayExperimentDetailed(x, { seed }).metrics;
}

/** {@link replayExperiment} with options, and the prefix-cache hit rate. */
export function replayExperimentDetailed(x: FitExperiment, opts: ReplayOptions = {}): ReplayResult {
  const seed = opts.seed ?? 1;
  const scale = opts.scale ?? 1;
  const model = catalogueModelFor(x.model_hf_id);
  if (!model) throw new Error(`${x.experiment}: model ${x.model_hf_id} is not in the catalogue`);
  const cfg = resolveEngineConfig({
    model,
    gpu: 'h100',
    tp: x.tp,
    engine: 'vllm-v1',
    dtype: /fp8/i.test(x.precision_label ?? '') ? 'fp8' : 'bf16',
    maxNumBatchedTokens: x.vllm.max_num_batched_tokens,
    maxNumSeqs: x.vllm.max_num_seqs,
    maxModelLen: x.vllm.max_model_len,
    gpuMemoryUtilization: x.vllm.gpu_memory_utilization,
    // The block count the run's own vLLM log reported: 66 and 67's memory fraction is ambiguous,
    // and it decides how much of the 100 cycling prompts the prefix cache keeps.
    numGpuBlocksOverride: x.kv_cache?.total_kv_blocks,
    calibration:
      opts.cost || opts.frontend
        ? ({ path: 'fit', cost: opts.cost ?? {}, frontend: opts.frontend ?? {} } as CalibrationProfile)
        : undefined,
  });
  const vocab = cfg.model.vocab_size;
  const sharing = x.workload.effective_prefix_sharing;
  const reqs: PlanRequest[] = [];
  const stageOf: number[] = [];
  const offsets: number[][] = [];
  for (const st of x.stages) {
    const out = st.output_tokens_spec.max_tokens;
    // One prompt set per run (the data generator is built once, before the stages).
    const prompts = sharedPrefixTokenIds(
      {
        numGroups: sharing.num_groups,
        promptsPerGroup: sharing.num_prompts_per_group,
        systemPromptLen: st.input_tokens_spec.system_prompt_len,
        questionLen: st.input_tokens_spec.question_len,
        outputLen: out,
      },
      seed,
      vocab,
      PROMPT_LENGTH_SCALE,
    );
    const stage = { rateRps: st.rate_rps, durationS: st.duration_s * scale };
    const o = stageOffsetsMs(stage, 'poisson', hashString(`${seed}:stage:${st.stage_index}`));
    offsets.push(o);
    for (let n = 0; n < o.length; n++) {
      const i = reqs.length;
      const id = `${st.stage_index}-${n}`;
      const promptIds = prompts[n % prompts.length];
      reqs.push({
        id,
        planned_id: id,
        phase: 'measure',
        index: i,
        spec: { index: i, input_len: promptIds.length, output_len: out },
        promptIds,
        maxTokens: out,
        eosLen: out,
      });
      stageOf.push(st.stage_index);
    }
  }
  const res = simulateDetailed(cfg, reqs, {
    kind: 'staged',
    stageOffsetsMs: offsets,
    pauseMs: STAGE_PAUSE_S * 1000,
  });
  const groups = new Map<number, { e2e: number[]; ttft: number[]; out: number[] }>();
  const add = (s: number, e2e: number, ttft: number, out: number) => {
    const g = groups.get(s) ?? { e2e: [], ttft: [], out: [] };
    groups.set(s, g);
    g.e2e.push(e2e);
    g.ttft.push(ttft);
    g.out.push(out);
  };
  res.records.forEach((r, i) => {
    const m = requestMetrics(r);
    if (m.e2e_ms === undefined || m.ttft_ms === undefined) return;
    const out = r.usage?.completion_tokens ?? reqs[i].maxTokens;
    add(stageOf[i], m.e2e_ms, m.ttft_ms, out);
    add(-1, m.e2e_ms, m.ttft_ms, out);
  });
  const result: SimulatedMetrics = new Map();
  for (const [s, g] of groups) result.set(s, metricsOf(g.e2e, g.ttft, g.out));
  const st = res.stats;
  return {
    metrics: result,
    prefixHitRate: st.prefixQueries > 0 ? st.prefixHits / st.prefixQueries : null,
    requests: reqs.length,
  };
}

/** Compare a replay with the measured table; rows with no measured value are skipped. */
export function compareReplay(x: FitExperiment, sim: SimulatedMetrics, actual: ActualTable): FitComparison[] {
  const rows: FitComparison[] = [];
  const byStage = actual.get(x.experiment);
  if (!byStage) return rows;
  for (const [stage, metrics] of [...sim].sort((a, b) => a[0] - b[0])) {
    for (const metric of FIT_METRICS) {
      const a = byStage.get(stage)?.get(metric);
      if (a === undefined || !Number.isFinite(a)) continue;
      const simulated = metrics[metric];
      rows.push({
        experiment: x.experiment,
        stage,
        metric,
        actual: a,
        simulated,
        errorPct: ((simulated - a) / a) * 100,
      });
    }
  }
  return rows;
}

/** Median |error| (percent) over rows whose metric starts with each family, for one stage filter. */
export function fitErrorMedians(
  rows: readonly FitComparison[],
  stageFilter: (stage: number) => boolean,
): { e2e: number | null; ttft: number | null; itl: number | null } {
  const med = (prefix: string) => {
    const v = rows
      .filter((r) => stageFilter(r.stage) && r.metric.startsWith(prefix))
      .map((r) => Math.abs(r.errorPct))
      .sort((a, b) => a - b);
    return percentile(v, 50);
  };
  return { e2e: med('e2e_'), ttft: med('ttft_'), itl: med('itl_') };
}
