/**
 * @module analysis/step-timeline
 * The engine's steps (`--record-steps`, `record/engine-step`) against one request's tokens: which
 * request to look at (one the user names, else the one with the worst stall), its worst gap
 * between two tokens, and the steps that ran inside that gap, with the prefill chunks they
 * carried. A decode step of a batch that also prefills a long chunk takes as long as that chunk
 * (vLLM's chunked prefill puts both in one forward pass: vllm/v1/core/sched/scheduler.py
 * `schedule`), so the chunk that made a gap is the largest prefill in the steps that span it.
 * Pure: times are the run's clock, ms.
 */
import type { RunStepRecord, StepPrefillChunk } from '../record/engine-step.js';
import type { RequestRecord } from '../record/types.js';

/** The worst gap of a request: between which two tokens, and how long, ms. */
export interface TokenGap {
  /** Index of the token after the gap (1 = between the first and the second). */
  index: number;
  from_ms: number;
  to_ms: number;
  gap_ms: number;
}

/** What ran while a request waited for its next token. */
export interface StallCause {
  gap: TokenGap;
  /** Steps that overlap the gap. */
  steps: RunStepRecord[];
  /** The largest prefill chunk of those steps (another request's, or null when none prefilled). */
  chunk: (StepPrefillChunk & { step: number; dur_ms: number }) | null;
  /** Preemptions among those steps (the request itself may be one). */
  preempted: string[];
}

/** The largest gap between consecutive token times of a record; null with fewer than 2 tokens. */
export function worstGap(rec: RequestRecord): TokenGap | null {
  const t = rec.chunk_times_ms;
  let best: TokenGap | null = null;
  for (let i = 1; i < t.length; i++) {
    const g = t[i] - t[i - 1];
    if (!best || g > best.gap_ms) best = { index: i, from_ms: t[i - 1], to_ms: t[i], gap_ms: g };
  }
  return best;
}

/**
 * The request the timeline is drawn for: `wanted` (a record id, a planned id, or a measured
 * request's workload index), else the measured request with the worst gap between two tokens.
 * Null when no record streamed two tokens (or `wanted` matches none).
 */
export function timelineRequest(records: readonly RequestRecord[], wanted?: string): RequestRecord | null {
  const streamed = records.filter((r) => r.chunk_times_ms.length >= 2);
  if (wanted !== undefined) {
    const byId = streamed.find((r) => r.id === wanted || r.planned_id === wanted);
    if (byId) return byId;
    const n = /^\d+$/.test(wanted) ? Number(wanted) : null;
    return n === null ? null : (streamed.find((r) => r.phase === 'measure' && r.index === n) ?? null);
  }
  let best: RequestRecord | null = null;
  let bestGap = -1;
  for (const r of streamed) {
    if (r.phase !== 'measure') continue;
    const g = worstGap(r)?.gap_ms ?? -1;
    if (g > bestGap) {
      best = r;
      bestGap = g;
    }
  }
  return best;
}

/** The steps that overlap [from, to] (run-clock ms), in order. */
export function stepsBetween(steps: readonly RunStepRecord[], fromMs: number, toMs: number): RunStepRecord[] {
  return steps.filter((s) => s.t_ms < toMs && s.t_ms + s.dur_ms > fromMs);
}

/** Why a request's worst gap was long: the steps inside it and the largest prefill chunk among them. */
export function stallCause(steps: readonly RunStepRecord[], rec: RequestRecord): StallCause | null {
  const gap = worstGap(rec);
  if (!gap) return null;
  const inside = stepsBetween(steps, gap.from_ms, gap.to_ms);
  let chunk: StallCause['chunk'] = null;
  for (const s of inside)
    for (const c of s.prefill)
      if (!chunk || c.tokens > chunk.tokens) chunk = { ...c, step: s.step, dur_ms: s.dur_ms };
  const preempted = [...new Set(inside.flatMap((s) => s.preempted))];
  return { gap, steps: inside, chunk, preempted };
}
