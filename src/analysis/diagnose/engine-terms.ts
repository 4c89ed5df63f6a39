/**
 * @module analysis/diagnose/engine-terms
 * The engine a run's server was read as, and the names its advice uses for that engine's
 * settings: a finding about SGLang names `--chunked-prefill-size` and `--max-running-requests`,
 * not vLLM's `max_num_batched_tokens` and `max_num_seqs`, and one about llama.cpp names `-np`,
 * `-b/-ub` and `-c` (split over the slots). The engine comes from the scrape
 * (`monitoring.scrape.sources[].engine`, by metric names: `monitor/maps` `detectEngine`), for a
 * recorded experiment its record's `engine.name`, or llama.cpp's per-response `timings` in the
 * records; unknown means vLLM's terms, which are also the simulator's setting keys.
 */

import type { T } from '../../i18n/index.js';
import type { LoadedRun } from '../loaded-run.js';
import { EN } from './default-lang.js';

/** What the advice calls each engine's settings and mechanisms. */
export interface EngineTerms {
  engine: 'vllm' | 'sglang' | 'llamacpp';
  /** The cap on requests in one batch. */
  maxSeqs: string;
  /** The per-step token budget that bounds a prefill chunk. */
  batchTokens: string;
  /** KV cache precision, as set to fp8. */
  kvFp8: string;
  /** What the engine calls evicting a running request. */
  preemption: string;
  /** The setting that bounds one request's prompt plus output (the context window). */
  contextLimit: string;
  /** How a long prefill delays running decodes (prose, in the translator's language). */
  prefillInterference: string;
  /** Why a request waits before its prefill (prose). */
  queueFull: string;
  /** How to get more KV capacity (prose). */
  kvCapacity: string;
  /** Where one request's context window of `ctx` tokens comes from (prose). */
  contextWindow: (ctx: string) => string;
}

/** The prose fields: catalogue keys, one per engine. */
type Prose = 'prefillInterference' | 'queueFull' | 'kvCapacity' | 'contextWindow';
type Engine = EngineTerms['engine'];
type Terms = Omit<EngineTerms, Prose> & {
  prefillInterference: `diagnose.engine.prefill_interference_${Engine}`;
  queueFull: `diagnose.engine.queue_full_${Engine}`;
  kvCapacity: `diagnose.engine.kv_capacity_${Engine}`;
  contextWindow: `diagnose.engine.context_window_${Engine}`;
};

const VLLM: Terms = {
  engine: 'vllm',
  maxSeqs: 'max_num_seqs',
  batchTokens: 'max_num_batched_tokens',
  kvFp8: 'kv_cache_dtype fp8',
  preemption: 'preemption',
  contextLimit: 'max_model_len',
  prefillInterference: 'diagnose.engine.prefill_interference_vllm',
  queueFull: 'diagnose.engine.queue_full_vllm',
  kvCapacity: 'diagnose.engine.kv_capacity_vllm',
  contextWindow: 'diagnose.engine.context_window_vllm',
};

/** SGLang's server arguments (`sgl-project/sglang:python/sglang/srt/server_args.py`). */
const SGLANG: Terms = {
  engine: 'sglang',
  maxSeqs: '--max-running-requests',
  batchTokens: '--chunked-prefill-size',
  kvFp8: '--kv-cache-dtype fp8_e5m2',
  preemption: 'retraction',
  contextLimit: '--context-length',
  prefillInterference: 'diagnose.engine.prefill_interference_sglang',
  queueFull: 'diagnose.engine.queue_full_sglang',
  kvCapacity: 'diagnose.engine.kv_capacity_sglang',
  contextWindow: 'diagnose.engine.context_window_sglang',
};

/**
 * llama.cpp's `llama-server` flags (`ggml-org/llama.cpp:common/arg.cpp`, `tools/server/README.md`):
 * `-np/--parallel` slots, each a running request; `-c/--ctx-size` the whole KV context, split
 * evenly over the slots (`n_ctx_slot = n_ctx / n_parallel` in `tools/server/server.cpp`);
 * `-b/--batch-size` and `-ub/--ubatch-size` the tokens of one `llama_decode`; `--cache-type-k/-v`
 * the KV precision (q8_0 halves F16's size; llama.cpp has no fp8 KV). It never evicts a running
 * slot: a full context ends the request (`finish_reason: length`) instead of preempting it.
 */
const LLAMACPP: Terms = {
  engine: 'llamacpp',
  maxSeqs: '-np/--parallel',
  batchTokens: '-b/-ub (--batch-size/--ubatch-size)',
  kvFp8: '--cache-type-k q8_0 --cache-type-v q8_0',
  preemption: 'context limit',
  contextLimit: '-c/--ctx-size',
  prefillInterference: 'diagnose.engine.prefill_interference_llamacpp',
  queueFull: 'diagnose.engine.queue_full_llamacpp',
  kvCapacity: 'diagnose.engine.kv_capacity_llamacpp',
  contextWindow: 'diagnose.engine.context_window_llamacpp',
};

const BY_ENGINE: Record<Engine, Terms> = { vllm: VLLM, sglang: SGLANG, llamacpp: LLAMACPP };

/**
 * The engine family a name says: the scrape's `llamacpp`, the probe's `llama.cpp`, `sglang`,
 * `vllm` or `vllm-v0`; anything else (the simulator, unknown) is vLLM's.
 */
export function engineFamily(name: string | undefined): Engine {
  const n = (name ?? '').toLowerCase().replace(/[^a-z0-9]/g, '');
  if (n === 'sglang') return 'sglang';
  if (n === 'llamacpp' || n === 'llamaserver') return 'llamacpp';
  return 'vllm';
}

/** The engine of the first scraped source that named one (`sglang`, `vllm`, `vllm-v0`, `sim` …). */
export function scrapedEngine(monitoring: unknown): string | undefined {
  const sources = (monitoring as { scrape?: { sources?: { engine?: unknown }[] } } | null | undefined)?.scrape
    ?.sources;
  if (!Array.isArray(sources)) return undefined;
  for (const s of sources) if (typeof s?.engine === 'string' && s.engine !== 'unknown') return s.engine;
  return undefined;
}

/**
 * The engine a run's server was read as, if anything says: the scrape, the experiment record,
 * or llama.cpp's `timings` object (`predicted_n`) on a response, which only llama-server sends.
 */
export function runEngine(run: LoadedRun): string | undefined {
  if (run.engine) return run.engine;
  const rec = run.record as Record<string, unknown> | undefined;
  const fromScrape = scrapedEngine(rec?.monitoring);
  if (fromScrape) return fromScrape;
  const name = (rec?.engine as { value?: { name?: unknown } } | undefined)?.value?.name;
  if (typeof name === 'string') return name;
  if (run.records.some((r) => r.timings != null && typeof r.timings.predicted_n === 'number'))
    return 'llamacpp';
  return undefined;
}

/** The terms of an engine family, its prose in `t`'s language. */
export function termsOf(engine: Engine, t: T = EN): EngineTerms {
  const terms = BY_ENGINE[engine];
  return {
    ...terms,
    prefillInterference: t(terms.prefillInterference),
    queueFull: t(terms.queueFull),
    kvCapacity: t(terms.kvCapacity),
    contextWindow: (ctx) => t(terms.contextWindow, { ctx }),
  };
}

/** The terms of the run's engine (vLLM's unless it was SGLang or llama.cpp), in `t`'s language. */
export function engineTerms(run: LoadedRun, t: T = EN): EngineTerms {
  return termsOf(engineFamily(runEngine(run)), t);
}
