/**
 * @module analysis/series
 * Pure functions over the scraped server series: counter increases (reset-aware), the server's
 * token rate, and the per-run summary the report, the diagnosis and the verdict read (peak GPU
 * memory, KV usage, counter deltas, prefix-cache hit rate, server tokens/s).
 */
import { COUNTER_VOCAB, type ScrapePoint, type VocabName } from '../record/series.js';
import type { LoadedRun } from './loaded-run.js';
import { mean } from './stats.js';
import { measurementWindow } from './window.js';

/**
 * Server token rate in tokens/s between two readings of `generation_tokens_total`.
 * Returns null when time did not advance; a counter reset (value went down) counts the new
 * value as the increase, as Prometheus's `rate()` does.
 *
 * @param prev earlier reading: `t_ms` on the run clock, `value` in tokens.
 * @param cur later reading.
 */
export function tokenRate(
  prev: { t_ms: number; value: number },
  cur: { t_ms: number; value: number },
): number | null {
  const dt_s = (cur.t_ms - prev.t_ms) / 1000;
  if (!(dt_s > 0)) return null;
  const inc = cur.value >= prev.value ? cur.value - prev.value : cur.value;
  return inc / dt_s;
}

/** Increase of a counter over a series of readings, reset-aware (a drop restarts from 0). */
export function counterIncrease(values: readonly number[]): number | null {
  if (values.length < 2) return null;
  let inc = 0;
  for (let i = 1; i < values.length; i++) {
    const d = values[i] - values[i - 1];
    inc += d >= 0 ? d : values[i];
  }
  return inc;
}

/**
 * The span to summarise, run-clock ms. Each series keeps its readings inside the span plus the
 * last one before it and the first one after it, so a window shorter than the scrape interval
 * still has a counter delta (and a gauge reading) around it, over the smallest span that
 * contains it.
 */
export interface SummaryWindow {
  from_ms?: number;
  to_ms?: number;
}

/** What the run record and the report keep from the scraped series. Null = no data. */
export interface SeriesSummary {
  /** Highest GPU memory in use (summed over GPUs), MiB and GiB. */
  peak_gpu_memory_mib: number | null;
  peak_gpu_memory_gib: number | null;
  /**
   * Mean GPU utilisation over the readings that describe the window, %: a reading is the busy
   * share of the sample period before it (DCGM, nvidia-smi), so the last reading before the
   * window, which describes time before it, is left out; the first one after it is kept.
   */
  mean_gpu_util_pct: number | null;
  /** KV-cache usage, 0..1. */
  mean_kv_usage: number | null;
  max_kv_usage: number | null;
  max_running: number | null;
  max_waiting: number | null;
  /** Counter increases over the window (reset-aware), summed over sources. */
  preemptions_delta: number | null;
  prompt_tokens_delta: number | null;
  /** Compare with the client's summed `usage.completion_tokens` (the token-count check). */
  generation_tokens_delta: number | null;
  prefix_queries_delta: number | null;
  prefix_hits_delta: number | null;
  /** prefix hits / queries over the window, 0..1. */
  prefix_hit_rate: number | null;
  /** Mean server generation rate over the window: token increase / time span, tokens/s. */
  server_tokens_per_s: number | null;
  /** Speculative decoding's counter increases (vLLM), and SGLang's gauges' mean (analysis/speculative). */
  spec_drafts_delta: number | null;
  spec_draft_tokens_delta: number | null;
  spec_accepted_tokens_delta: number | null;
  mean_spec_accept_rate: number | null;
  mean_spec_accept_length: number | null;
  /** Number of points summarised. */
  points: number;
}

/**
 * Summarise scraped points (pure). Gauges are pooled over all sources; counters are
 * differenced per source first, then summed, so two engines scraped side by side add up.
 */
export function seriesSummary(points: readonly ScrapePoint[], window: SummaryWindow = {}): SeriesSummary {
  const from = window.from_ms ?? Number.NEGATIVE_INFINITY;
  const to = window.to_ms ?? Number.POSITIVE_INFINITY;
  // Per series: the readings inside the window and the nearest one on either side of it.
  const before = new Map<string, ScrapePoint>();
  const after = new Map<string, ScrapePoint>();
  const inside: ScrapePoint[] = [];
  for (const p of points) {
    const key = `${p.source}\u0000${p.name}`;
    if (p.t_ms < from) {
      const b = before.get(key);
      if (!b || p.t_ms > b.t_ms) before.set(key, p);
    } else if (p.t_ms > to) {
      const a = after.get(key);
      if (!a || p.t_ms < a.t_ms) after.set(key, p);
    } else inside.push(p);
  }
  const inWin = [...before.values(), ...inside, ...after.values()];
  const values = (name: VocabName) => inWin.filter((p) => p.name === name).map((p) => p.value);
  const max = (xs: number[]) => (xs.length ? xs.reduce((a, b) => Math.max(a, b)) : null);

  const perSource = (name: VocabName) => {
    const bySrc = new Map<string, ScrapePoint[]>();
    for (const p of inWin) {
      if (p.name !== name) continue;
      let l = bySrc.get(p.source);
      if (!l) {
        l = [];
        bySrc.set(p.source, l);
      }
      l.push(p);
    }
    for (const l of bySrc.values()) l.sort((a, b) => a.t_ms - b.t_ms);
    return bySrc;
  };
  const delta = (name: VocabName): number | null => {
    if (!COUNTER_VOCAB.has(name)) throw new Error(`${name} is not a counter`);
    let total: number | null = null;
    for (const l of perSource(name).values()) {
      const inc = counterIncrease(l.map((p) => p.value));
      if (inc !== null) total = (total ?? 0) + inc;
    }
    return total;
  };
  let rate: number | null = null;
  for (const l of perSource('generation_tokens_total').values()) {
    const inc = counterIncrease(l.map((p) => p.value));
    const span_s = l.length ? (l[l.length - 1].t_ms - l[0].t_ms) / 1000 : 0;
    if (inc !== null && span_s > 0) rate = (rate ?? 0) + inc / span_s;
  }

  const peak = max(values('gpu_memory_used_mib'));
  const queries = delta('prefix_queries_total');
  const hits = delta('prefix_hits_total');
  return {
    peak_gpu_memory_mib: peak,
    peak_gpu_memory_gib: peak === null ? null : peak / 1024,
    // Readings inside the window only: one after it may describe the idle time after the run
    // (the simulator's reads its GPU at the read instant, and a real DCGM sample is of its own
    // last second, taken up to a collect interval before the scrape).
    mean_gpu_util_pct: mean(inside.filter((p) => p.name === 'gpu_util_pct').map((p) => p.value)),
    mean_kv_usage: mean(values('kv_usage')),
    max_kv_usage: max(values('kv_usage')),
    max_running: max(values('running')),
    max_waiting: max(values('waiting')),
    preemptions_delta: delta('preemptions_total'),
    prompt_tokens_delta: delta('prompt_tokens_total'),
    generation_tokens_delta: delta('generation_tokens_total'),
    prefix_queries_delta: queries,
    prefix_hits_delta: hits,
    prefix_hit_rate: queries !== null && hits !== null && queries > 0 ? hits / queries : null,
    server_tokens_per_s: rate,
    spec_drafts_delta: delta('spec_drafts_total'),
    spec_draft_tokens_delta: delta('spec_draft_tokens_total'),
    spec_accepted_tokens_delta: delta('spec_accepted_tokens_total'),
    mean_spec_accept_rate: mean(values('spec_accept_rate')),
    mean_spec_accept_length: mean(values('spec_accept_length')),
    points: inWin.length,
  };
}

/**
 * A stored run's scrape series summarised over its measurement window (the run's own, else the
 * one its records span), or null when it kept no series: what `report` and the speculative
 * summary both read.
 */
export function runSeriesSummary(run: LoadedRun): SeriesSummary | null {
  if (!run.series?.length) return null;
  const window = run.window ?? measurementWindow(run.records) ?? null;
  return seriesSummary(
    run.series as ScrapePoint[],
    window ? { from_ms: window.start_ms, to_ms: window.end_ms } : {},
  );
}
