/**
 * @module sim/calibrate/observations
 * What client-side records say, as `servelab calibrate` reads them: which records can be read,
 * a run's peak number of requests in flight and output rate (which classify it as low load or
 * saturated), the decode gaps and first-token times of a low-load run, and the batch gaps of a
 * saturated one. Plain data from records; the models they are fitted to are `fit.ts`'s.
 */
import { chunkGaps } from '../../analysis/request.js';
import type { RequestRecord } from '../../record/types.js';

/** Records that can be read: measured, streamed, complete, with usage and at least one token. */
export function usable(records: readonly RequestRecord[]): RequestRecord[] {
  return records.filter(
    (r) =>
      r.phase === 'measure' &&
      (r.outcome === 'ok' || r.outcome === 'length') &&
      r.stream !== false &&
      r.sent_at_ms !== null &&
      r.chunk_times_ms.length > 0 &&
      r.usage?.prompt_tokens != null,
  );
}

/** Peak number of requests in flight ([sent, end] overlapping). */
export function peakInFlight(records: readonly RequestRecord[]): number {
  const ev: [number, number][] = [];
  for (const r of records) {
    const end = r.end_at_ms ?? r.chunk_times_ms[r.chunk_times_ms.length - 1];
    if (r.sent_at_ms === null || end === undefined) continue;
    ev.push([r.sent_at_ms, 1], [end, -1]);
  }
  // Ends before starts at the same time: a closed loop's next request is not overlapping.
  ev.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let n = 0;
  let peak = 0;
  for (const [, d] of ev) {
    n += d;
    peak = Math.max(peak, n);
  }
  return peak;
}

export function outputRate(records: readonly RequestRecord[]): number | null {
  let tokens = 0;
  let t0 = Number.POSITIVE_INFINITY;
  let t1 = Number.NEGATIVE_INFINITY;
  for (const r of records) {
    tokens += r.chunk_times_ms.length;
    t0 = Math.min(t0, r.sent_at_ms ?? t0);
    t1 = Math.max(t1, r.chunk_times_ms[r.chunk_times_ms.length - 1] ?? t1);
  }
  return t1 > t0 && tokens > 0 ? (tokens / (t1 - t0)) * 1e3 : null;
}

export interface DecodeObs {
  ctx: number;
  gapMs: number;
}
export interface PrefillObs {
  /** Uncached prompt tokens and the cached prefix. */
  n: number;
  cached: number;
  ttftMs: number;
}

export function lowLoadObs(records: readonly RequestRecord[]): {
  decode: DecodeObs[];
  prefill: PrefillObs[];
} {
  const decode: DecodeObs[] = [];
  const prefill: PrefillObs[] = [];
  for (const r of records) {
    const prompt = r.usage?.prompt_tokens ?? 0;
    const cached = r.usage?.cached_tokens ?? 0;
    prefill.push({
      n: Math.max(1, prompt - cached),
      cached: Math.min(cached, prompt - 1),
      ttftMs: r.chunk_times_ms[0] - (r.sent_at_ms as number),
    });
    // Gap 1 carries the first chunk's extra API work; from gap 2 on each gap is one decode step.
    const gaps = chunkGaps(r);
    for (let j = 2; j <= gaps.length; j++) decode.push({ ctx: prompt + j - 1, gapMs: gaps[j - 1] });
  }
  return { decode, prefill };
}

export interface Batch {
  atMs: number;
  chunks: number;
  firsts: number;
}

/** Chunks that arrived together (within `tolMs`), in time order. */
export function batchesOf(records: readonly RequestRecord[], tolMs: number): Batch[] {
  const pts: [number, boolean][] = [];
  for (const r of records)
    for (let i = 0; i < r.chunk_times_ms.length; i++) pts.push([r.chunk_times_ms[i], i === 0]);
  pts.sort((a, b) => a[0] - b[0]);
  const out: Batch[] = [];
  for (const [t, first] of pts) {
    const last = out[out.length - 1];
    if (last && t - last.atMs <= tolMs) {
      last.chunks++;
      if (first) last.firsts++;
    } else out.push({ atMs: t, chunks: 1, firsts: first ? 1 : 0 });
  }
  return out;
}

export interface GapObs {
  gapMs: number;
  chunks: number;
  firsts: number;
}

/** The batch gaps of a saturated run's middle 60% (start-up and drain left out). */
export function saturatedGaps(records: readonly RequestRecord[]): GapObs[] {
  const b = batchesOf(records, 1e-6);
  const lo = Math.floor(b.length * 0.2);
  const hi = Math.ceil(b.length * 0.8);
  const out: GapObs[] = [];
  for (let j = Math.max(1, lo); j < hi; j++)
    out.push({ gapMs: b[j].atMs - b[j - 1].atMs, chunks: b[j].chunks, firsts: b[j].firsts });
  return out;
}
