/**
 * @module analysis/speculative
 * A run's speculative-decoding numbers, from whichever engine reported them (docs/metrics.md,
 * "Speculative decoding"):
 *
 * - vLLM (and servelab's simulator): the increases of `vllm:spec_decode_num_drafts_total`,
 *   `…num_draft_tokens_total` and `…num_accepted_tokens_total` over the window, read through
 *   the metric map (`monitor/maps`);
 * - SGLang: the mean of its `sglang:spec_accept_rate` and `sglang:spec_accept_length` gauges
 *   (each the average of its last logging interval, so an approximation of the run's);
 * - llama.cpp: each response's `timings.draft_n` and `timings.draft_n_accepted`, summed over
 *   the run's responses (`ggml-org/llama.cpp:tools/server/server.cpp`, `send_final_response`
 *   timings); llama.cpp does not say how many drafts it made, so the mean accepted length and
 *   the draft efficiency are null.
 *
 * Definitions follow vLLM's (`vllm/v1/spec_decode/metrics.py` @016a8587, `SpecDecodingLogging`):
 * acceptance rate = accepted / draft tokens; mean accepted length = 1 + accepted / drafts (the
 * bonus token included). The draft efficiency is vLLM v0's "system efficiency" (`vllm/spec_decode/
 * metrics.py`): tokens emitted over the most a verify pass could emit, (drafts + accepted) /
 * (drafts + draft tokens). Pure.
 */
import type { RequestRecord } from '../record/types.js';
import type { LoadedRun } from './loaded-run.js';
import { runSeriesSummary } from './series.js';

/** Why a number is null. */
export type SpecNullReason =
  /** No spec-decode counters, gauges or draft timings at all: speculation off, or not reported. */
  | 'no_data'
  /** Reported, but nothing was drafted in the run. */
  | 'no_drafts'
  /** The engine counts draft tokens but not drafts (llama.cpp timings, vLLM v0). */
  | 'drafts_not_reported';

export interface SpeculativeSummary {
  /** Where the numbers come from. */
  source: 'metrics' | 'sglang_gauges' | 'llamacpp_timings' | null;
  drafts: number | null;
  draft_tokens: number | null;
  accepted_tokens: number | null;
  /** accepted / draft tokens, 0..1. */
  acceptance_rate: number | null;
  /** 1 + accepted / drafts, tokens per verify pass (vLLM's mean acceptance length). */
  mean_accepted_length_tokens: number | null;
  /** (drafts + accepted) / (drafts + draft tokens), 0..1. */
  draft_efficiency: number | null;
  /** Why the null numbers are null; null when every number is there. */
  reason: SpecNullReason | null;
  /**
   * ngram on prompts that carry no text (synthetic words): the simulator's assumed conditional
   * acceptance per position and its published source (`sim/engine/speculative`,
   * `NGRAM_SYNTHETIC_ACCEPTANCE`); absent when the acceptance was measured or set.
   */
  ngram_prior?: { acceptance_per_position: number; mean_accepted_tokens: number; source: string };
}

/** What {@link speculativeSummary} reads from a series summary (`analysis/series`). */
export interface SpecSeries {
  spec_drafts_delta?: number | null;
  spec_draft_tokens_delta?: number | null;
  spec_accepted_tokens_delta?: number | null;
  mean_spec_accept_rate?: number | null;
  mean_spec_accept_length?: number | null;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** Σ draft_n and Σ draft_n_accepted over the records whose `timings` carry them; null when none does. */
export function llamacppDraftTotals(
  records: readonly Pick<RequestRecord, 'timings'>[],
): { draft_n: number; draft_n_accepted: number } | null {
  let seen = false;
  let n = 0;
  let acc = 0;
  for (const r of records) {
    const t = r.timings as Record<string, unknown> | null | undefined;
    if (!t) continue;
    const d = num(t.draft_n);
    const a = num(t.draft_n_accepted);
    if (d === null || a === null) continue;
    seen = true;
    n += d;
    acc += a;
  }
  return seen ? { draft_n: n, draft_n_accepted: acc } : null;
}

/** The run's speculative-decoding summary from its scraped series and its records. */
export function speculativeSummary(
  series: SpecSeries | null | undefined,
  records: readonly Pick<RequestRecord, 'timings'>[],
): SpeculativeSummary {
  const none: SpeculativeSummary = {
    source: null,
    drafts: null,
    draft_tokens: null,
    accepted_tokens: null,
    acceptance_rate: null,
    mean_accepted_length_tokens: null,
    draft_efficiency: null,
    reason: 'no_data',
  };
  const draftTokens = num(series?.spec_draft_tokens_delta);
  const accepted = num(series?.spec_accepted_tokens_delta);
  if (draftTokens !== null && accepted !== null) {
    const drafts = num(series?.spec_drafts_delta);
    const out: SpeculativeSummary = {
      ...none,
      source: 'metrics',
      drafts,
      draft_tokens: draftTokens,
      accepted_tokens: accepted,
      reason: null,
    };
    if (draftTokens === 0) return { ...out, reason: 'no_drafts' };
    out.acceptance_rate = accepted / draftTokens;
    if (drafts === null || drafts === 0) return { ...out, reason: 'drafts_not_reported' };
    out.mean_accepted_length_tokens = 1 + accepted / drafts;
    out.draft_efficiency = (drafts + accepted) / (drafts + draftTokens);
    return out;
  }
  const rate = num(series?.mean_spec_accept_rate);
  const length = num(series?.mean_spec_accept_length);
  if (rate !== null || length !== null)
    return {
      ...none,
      source: 'sglang_gauges',
      acceptance_rate: rate,
      mean_accepted_length_tokens: length,
      reason: 'drafts_not_reported',
    };
  const ll = llamacppDraftTotals(records);
  if (ll)
    return {
      ...none,
      source: 'llamacpp_timings',
      draft_tokens: ll.draft_n,
      accepted_tokens: ll.draft_n_accepted,
      acceptance_rate: ll.draft_n > 0 ? ll.draft_n_accepted / ll.draft_n : null,
      reason: ll.draft_n > 0 ? 'drafts_not_reported' : 'no_drafts',
    };
  return none;
}

/**
 * Several runs' summaries as one (an A/B side's blocks): counts add up and the ratios are
 * recomputed; SGLang's gauge readings are averaged. Null reason `no_data` when none has data.
 */
export function poolSpeculative(list: readonly SpeculativeSummary[]): SpeculativeSummary {
  const withData = list.filter((s) => s.source !== null);
  if (withData.length === 0) return speculativeSummary(null, []);
  const counted = withData.filter((s) => s.draft_tokens !== null && s.accepted_tokens !== null);
  if (counted.length === withData.length) {
    const add = (k: 'drafts' | 'draft_tokens' | 'accepted_tokens') =>
      counted.every((s) => s[k] !== null) ? counted.reduce((a, s) => a + (s[k] as number), 0) : null;
    const series: SpecSeries = {
      spec_drafts_delta: add('drafts'),
      spec_draft_tokens_delta: add('draft_tokens'),
      spec_accepted_tokens_delta: add('accepted_tokens'),
    };
    const prior = withData.find((s) => s.ngram_prior)?.ngram_prior;
    return {
      ...speculativeSummary(series, []),
      source: withData[0].source,
      ...(prior ? { ngram_prior: prior } : {}),
    };
  }
  const avg = (k: 'acceptance_rate' | 'mean_accepted_length_tokens') => {
    const xs = withData.map((s) => s[k]).filter((x): x is number => x !== null);
    return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;
  };
  return speculativeSummary(
    {
      mean_spec_accept_rate: avg('acceptance_rate'),
      mean_spec_accept_length: avg('mean_accepted_length_tokens'),
    },
    [],
  );
}

/**
 * A stored run's summary (`servelab report`): from its series over its measurement window and its
 * records, as the run computed it, with the ngram prior its config kept (`pipeline/measure`).
 */
export function runSpeculative(run: LoadedRun): SpeculativeSummary {
  const series = runSeriesSummary(run);
  const s = speculativeSummary(series as SpecSeries | null, run.records);
  const prior = run.config.ngram_prior as SpeculativeSummary['ngram_prior'] | undefined;
  return prior && typeof prior.acceptance_per_position === 'number' ? { ...s, ngram_prior: prior } : s;
}
