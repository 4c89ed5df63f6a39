/**
 * @module analysis/diagnose/engine-terms
 * The engine a run's server was read as, and the names its advice uses for that engine's
 * settings: a finding about SGLang names `--chunked-prefill-size` and `--max-running-requests`,
 * not vLLM's `max_num_batched_tokens` and `max_num_seqs`. The engine comes from the scrape
 * (`monitoring.scrape.sources[].engine`, by metric names: `monitor/maps` `detectEngine`) or, for
 * a recorded experiment, its record's `engine.name`; unknown means vLLM's terms, which are also
 * the simulator's setting keys.
 */

import type { T } from '../../i18n/index.js';
import type { LoadedRun } from '../loaded-run.js';
import { EN } from './default-lang.js';

/** What the advice calls each engine's settings and mechanisms. */
export interface EngineTerms {
  engine: 'vllm' | 'sglang';
  /** The cap on requests in one batch. */
  maxSeqs: string;
  /** The per-step token budget that bounds a prefill chunk. */
  batchTokens: string;
  /** KV cache precision, as set to fp8. */
  kvFp8: string;
  /** What the engine calls evicting a running request. */
  preemption: string;
  /** How a long prefill delays running decodes (prose, in the translator's language). */
  prefillInterference: string;
}

type Terms = Omit<EngineTerms, 'prefillInterference'> & {
  prefillInterference:
    | 'diagnose.engine.prefill_interference_vllm'
    | 'diagnose.engine.prefill_interference_sglang';
};

const VLLM: Terms = {
  engine: 'vllm',
  maxSeqs: 'max_num_seqs',
  batchTokens: 'max_num_batched_tokens',
  kvFp8: 'kv_cache_dtype fp8',
  preemption: 'preemption',
  prefillInterference: 'diagnose.engine.prefill_interference_vllm',
};

/** SGLang's server arguments (`sgl-project/sglang:python/sglang/srt/server_args.py`). */
const SGLANG: Terms = {
  engine: 'sglang',
  maxSeqs: '--max-running-requests',
  batchTokens: '--chunked-prefill-size',
  kvFp8: '--kv-cache-dtype fp8_e5m2',
  preemption: 'retraction',
  prefillInterference: 'diagnose.engine.prefill_interference_sglang',
};

/** The engine of the first scraped source that named one (`sglang`, `vllm`, `vllm-v0`, `sim` …). */
export function scrapedEngine(monitoring: unknown): string | undefined {
  const sources = (monitoring as { scrape?: { sources?: { engine?: unknown }[] } } | null | undefined)?.scrape
    ?.sources;
  if (!Array.isArray(sources)) return undefined;
  for (const s of sources) if (typeof s?.engine === 'string' && s.engine !== 'unknown') return s.engine;
  return undefined;
}

/** The engine a run's server was read as, if anything says. */
export function runEngine(run: LoadedRun): string | undefined {
  if (run.engine) return run.engine;
  const rec = run.record as Record<string, unknown> | undefined;
  const fromScrape = scrapedEngine(rec?.monitoring);
  if (fromScrape) return fromScrape;
  const name = (rec?.engine as { value?: { name?: unknown } } | undefined)?.value?.name;
  return typeof name === 'string' ? name : undefined;
}

/** The terms of the run's engine (vLLM's unless it was SGLang), its prose in `t`'s language. */
export function engineTerms(run: LoadedRun, t: T = EN): EngineTerms {
  const terms = runEngine(run)?.toLowerCase() === 'sglang' ? SGLANG : VLLM;
  return { ...terms, prefillInterference: t(terms.prefillInterference) };
}
