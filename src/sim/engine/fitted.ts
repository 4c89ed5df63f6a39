/**
 * @module sim/engine/fitted
 * The fitted step-time model's coefficients (issue 26), read from the committed
 * `fitted-coefficients.json` that `npm run fit` (bench/fit.ts) writes from `../shared/fit-data/`.
 * The cost model (`engine/cost`) and the API server (`sim/frontend`) take their defaults from
 * here, so the simulator runs the fitted model unless a calibration profile overrides a term.
 * What each coefficient means physically: docs/sim.md "Fitted step-time model".
 */
import file from './fitted-coefficients.json' with { type: 'json' };

/** The fitted coefficients, by their key in the file. */
export interface FittedCoefficients {
  /** × GEMM compute and attention compute (FLOPs at the GPU's peak × efficiency). */
  k_compute: number;
  /** × dense weight reads (decoder layers without routed experts, LM head). */
  k_weights: number;
  /** × routed-expert weight reads of MoE layers. */
  k_moe_experts: number;
  /** × KV reads of decode attention. */
  k_kv_decode: number;
  /** × tensor-parallel all-reduce time (payload and per-call latency). */
  k_tp_comm: number;
  /** ms per step. */
  t_step_ms: number;
  /** ms per decoder layer per step. */
  t_layer_ms: number;
  /** ms per scheduled request per step. */
  t_req_ms: number;
  /** ms per MoE layer per step. */
  t_moe_layer_ms: number;
  /** ms of API-server work per request before the engine (ingestion, tokenization). */
  frontend_overhead_ms: number;
  /** ms of API-server work per streamed output token (detokenization, SSE write). */
  frontend_chunk_ms: number;
}

/** The keys of {@link FittedCoefficients}, in the file's order. */
export const FITTED_KEYS = [
  'k_compute',
  'k_weights',
  'k_moe_experts',
  'k_kv_decode',
  'k_tp_comm',
  't_step_ms',
  't_layer_ms',
  't_req_ms',
  't_moe_layer_ms',
  'frontend_overhead_ms',
  'frontend_chunk_ms',
] as const satisfies readonly (keyof FittedCoefficients)[];

/** The committed coefficients. */
export const FITTED: Readonly<FittedCoefficients> = file.coefficients;

/**
 * Relative error quantiles of the fitted model's leave-one-experiment-out predictions, per
 * metric: measured ÷ simulated − 1 at the 10th and 90th percentile. Null before a fit wrote them.
 */
export interface FittedBands {
  /** How the quantiles were obtained, in a sentence (English; shown in docs, not translated). */
  method: string;
  /** Share of LOO-predicted measured values inside their 80% band (the calibration check). */
  coverage: number;
  metrics: Record<string, { q10: number; q90: number; n: number }>;
}

/** The committed bands, or null. */
export const FITTED_BANDS: FittedBands | null = (file as unknown as { bands: FittedBands | null }).bands;
