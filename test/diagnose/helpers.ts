/**
 * @module test/diagnose/helpers
 * Builds {@link LoadedRun}s from the simulator's virtual-time planner (no HTTP, milliseconds of
 * CPU), plus hand-made records for cases the simulator cannot produce (client lag, template
 * overhead). Server series are derived from the planner's per-request server times: `running`,
 * `waiting`, `kv_usage` and `generation_tokens_total` are exact at each grid time; the planner
 * does not time-stamp preemptions, so `preemptions_total` steps from 0 to the engine's final
 * count at the end of the run.
 */

import type { LoadedRun, SeriesPoint } from '../../src/analysis/loaded-run.js';
import { upperBound } from '../../src/analysis/stats.js';
import { type SummaryContext, summarize } from '../../src/analysis/summary.js';
import { emptyRecord, type RequestRecord } from '../../src/record/types.js';
import { Rng } from '../../src/runtime/rng.js';
import { type PlanLoad, type PlanRequest, simulateDetailed } from '../../src/sim/batch-driver.js';
import { resolveEngineConfig } from '../../src/sim/engine/config.js';
import type { EngineOptions } from '../../src/sim/settings.js';

export interface ReqShape {
  input: number;
  output: number;
  /** Natural length; default = output (ignore_eos, finishes with `length`). */
  eos?: number;
  /**
   * `output` is a generic max_tokens cap (`--max-tokens`), not a length the workload asked for:
   * the spec has no `output_len`, so a stop at the cap is a truncation.
   */
  cap?: boolean;
}

/** Planner requests with distinct random prompts. */
export function planRequests(shapes: readonly ReqShape[], seed = 1, idPrefix = 'r'): PlanRequest[] {
  const rng = new Rng(seed);
  return shapes.map((s, i) => {
    const id = `${idPrefix}${i}`;
    return {
      id,
      planned_id: id,
      phase: 'measure',
      index: i,
      spec: { index: i, input_len: s.input, output_len: s.cap ? null : s.output },
      promptIds: Array.from({ length: s.input }, () => rng.int(0, 150_000)),
      maxTokens: s.output,
      // eos beyond max_tokens → `length`; below → `stop`.
      eosLen: s.eos ?? s.output,
    };
  });
}

export interface SimRunOpts {
  label: string;
  engine: EngineOptions;
  shapes: readonly ReqShape[];
  load: PlanLoad;
  level?: LoadedRun['level'];
  config?: Record<string, unknown>;
  record?: LoadedRun['record'];
  ctx?: SummaryContext;
  seed?: number;
  /** Grid points for the derived server series (0 = no series). */
  seriesPoints?: number;
}

/** Simulate a run in virtual time and wrap it as a LoadedRun. */
export function simRun(o: SimRunOpts): LoadedRun {
  const cfg = resolveEngineConfig(o.engine);
  const res = simulateDetailed(cfg, planRequests(o.shapes, o.seed), o.load);
  const records = res.records;
  const summary = summarize(records, {
    max_concurrency:
      o.load.kind === 'closed'
        ? o.load.concurrency
        : o.load.kind === 'open'
          ? (o.load.maxConcurrency ?? null)
          : null,
    closed_loop_users: o.load.kind === 'closed' ? o.load.concurrency : null,
    client: { event_loop_delay_ms: { p50: 0.1, p99: 1, max: 2 }, cpu_percent: 20 },
    ...o.ctx,
  });
  const series: SeriesPoint[] = [];
  const n = o.seriesPoints ?? 200;
  if (n > 0) {
    const blocks = cfg.memory.numGpuBlocks;
    const bs = cfg.blockSize;
    const sched = res.server.map((s) => s.arrival_ms + s.queue_ms);
    for (let k = 0; k <= n; k++) {
      const t = (res.durationMs * k) / n;
      let running = 0;
      let waiting = 0;
      let usedBlocks = 0;
      let gen = 0;
      records.forEach((r, i) => {
        const emitted = upperBound(r.chunk_times_ms, t);
        gen += emitted;
        const end = r.end_at_ms ?? Number.POSITIVE_INFINITY;
        if (res.server[i].arrival_ms <= t && t < sched[i]) waiting++;
        if (sched[i] <= t && t < end) {
          running++;
          usedBlocks += Math.ceil(((r.usage?.prompt_tokens ?? 0) + emitted) / bs);
        }
      });
      const src = 'sim';
      series.push(
        { t_ms: t, source: src, name: 'running', value: running },
        { t_ms: t, source: src, name: 'waiting', value: waiting },
        { t_ms: t, source: src, name: 'kv_usage', value: Math.min(1, usedBlocks / blocks) },
        { t_ms: t, source: src, name: 'generation_tokens_total', value: gen },
        { t_ms: t, source: src, name: 'preemptions_total', value: k === n ? res.stats.preemptions : 0 },
        {
          t_ms: t,
          source: src,
          name: 'gpu_memory_used_mib',
          value: res.stats.gpuMemoryTotalGiB * 1024 * 0.9,
        },
      );
    }
  }
  return {
    id: o.label,
    label: o.label,
    config: { model: o.engine.model, gpu: o.engine.gpu, ...o.config },
    environment: { servelab_version: 'test', node_version: process.version },
    record: o.record,
    summary,
    records,
    series: n > 0 ? series : undefined,
    level: o.level,
  };
}

/** `n` identical shapes. */
export const many = (n: number, s: ReqShape): ReqShape[] => Array.from({ length: n }, () => ({ ...s }));

/**
 * A hand-made successful streamed record: sent at `sentMs`, first token after `ttftMs`, then
 * tokens every `gapMs` (a gap list overrides), usage filled in.
 */
export function handRecord(
  id: string,
  sentMs: number,
  ttftMs: number,
  tokens: number,
  gapMs: number | number[],
  input = 100,
): RequestRecord {
  const r = emptyRecord({
    id,
    planned_id: id,
    attempt: 1,
    phase: 'measure',
    index: Number(id.replace(/\D/g, '')) || 0,
  });
  const times: number[] = [sentMs + ttftMs];
  for (let i = 1; i < tokens; i++) times.push(times[i - 1] + (Array.isArray(gapMs) ? gapMs[i - 1] : gapMs));
  const last = times[times.length - 1];
  Object.assign(r, {
    planned_at_ms: sentMs,
    sent_at_ms: sentMs,
    headers_at_ms: sentMs + 1,
    first_chunk_at_ms: times[0],
    first_token_at_ms: times[0],
    first_content_at_ms: times[0],
    last_token_at_ms: last,
    last_content_at_ms: last,
    end_at_ms: last,
    chunk_times_ms: times,
    chunk_kinds: times.map(() => 'c'),
    finish_reason: 'stop',
    outcome: 'ok',
    done: true,
    has_content: true,
    http_status: 200,
    usage: { prompt_tokens: input, completion_tokens: tokens, total_tokens: input + tokens },
    input_len: input,
    output_len: tokens,
  });
  return r;
}

/** Wrap hand-made records as a run. */
export function handRun(
  label: string,
  records: RequestRecord[],
  ctx: SummaryContext = {},
  extra: Partial<LoadedRun> = {},
): LoadedRun {
  return {
    id: label,
    label,
    config: {},
    environment: {},
    summary: summarize(records, {
      client: { event_loop_delay_ms: { p50: 0.1, p99: 1, max: 2 }, cpu_percent: 20 },
      ...ctx,
    }),
    records,
    ...extra,
  };
}
