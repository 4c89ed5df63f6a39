/**
 * @module exp/lesson-two-engines
 * The two-engine lesson's attribution (the course's last paragraph: "把每项性能差异定位到缓存、
 * 调度、kernel、精度、输出长度或其他明确机制"): every difference between two engines measured under
 * the same conditions gets exactly one mechanism, by rules over what the runs measured:
 *
 * - **cache**: the prefix-cache hit rates differ (and a TTFT difference where they do: the engine
 *   with more hits prefills less);
 * - **output length**: the requests' output lengths differ (throughput and E2E scale with them);
 * - **precision**: the targets ran different weight precisions;
 * - **kernel**: a TPOT difference at concurrency 1, where a step is one request's forward pass and
 *   no scheduling choice is left (the per-token cost of the kernels);
 * - **scheduling**: a TTFT, ITL or TPOT difference under load without a cache difference (how each
 *   engine admits prompts and interleaves prefill chunks with decodes: vLLM's token budget per
 *   step against SGLang's prefill-first batches), and a throughput difference that follows it.
 *
 * A difference no rule explains keeps `mechanism: null`, and the lesson's sign check fails.
 */
import type { SweepPoint, SweepResult } from './kinds/sweep-report.js';

export const MECHANISMS = ['cache', 'scheduling', 'kernel', 'precision', 'output_length'] as const;
export type Mechanism = (typeof MECHANISMS)[number];

/** One difference between the two engines at one level. */
export interface EngineDifference {
  metric: 'ttft_ms.p50' | 'tpot_ms.p50' | 'itl_ms.p99' | 'output_tok_s' | 'cache_hit_rate';
  level: number;
  a: number;
  b: number;
  mechanism: Mechanism | null;
}

/** A difference counts from this relative size on (|a − b| / max(a, b)). */
export const DIFFERENCE_MIN = 0.1;
/** Hit rates differ from this many points on. */
const HIT_RATE_MIN = 0.05;

const differs = (a: number | null, b: number | null) =>
  a !== null &&
  b !== null &&
  Math.max(Math.abs(a), Math.abs(b)) > 0 &&
  Math.abs(a - b) / Math.max(Math.abs(a), Math.abs(b)) >= DIFFERENCE_MIN;

/** What each run said beyond the sweep's points (the experiment record's precision, the output length). */
export interface SideFacts {
  dtype?: string | null;
  output_tokens_mean?: number | null;
}

/** Every difference between the first two targets at the levels both measured, each with its mechanism. */
export function attributeDifferences(
  r: SweepResult,
  facts: [SideFacts, SideFacts] = [{}, {}],
): EngineDifference[] {
  const [A, B] = r.targets;
  if (!A || !B) return [];
  const out: EngineDifference[] = [];
  const precision = facts[0].dtype && facts[1].dtype && facts[0].dtype !== facts[1].dtype;
  const lengths = differs(facts[0].output_tokens_mean ?? null, facts[1].output_tokens_mean ?? null);
  for (const pa of A.points) {
    const pb = B.points.find((p) => p.level === pa.level);
    if (!pb) continue;
    const cache =
      pa.cache_hit_rate !== null &&
      pb.cache_hit_rate !== null &&
      Math.abs(pa.cache_hit_rate - pb.cache_hit_rate) >= HIT_RATE_MIN;
    const tpotDiffers = differs(pa.tpot_ms.p50, pb.tpot_ms.p50);
    const add = (
      metric: EngineDifference['metric'],
      a: number | null,
      b: number | null,
      mechanism: Mechanism | null,
    ) => {
      if (metric === 'cache_hit_rate' ? cache : differs(a, b))
        out.push({ metric, level: pa.level, a: a as number, b: b as number, mechanism });
    };
    const latency = (p: SweepPoint, k: 'ttft_ms' | 'tpot_ms') => p[k].p50;
    add('cache_hit_rate', pa.cache_hit_rate, pb.cache_hit_rate, 'cache');
    add(
      'ttft_ms.p50',
      latency(pa, 'ttft_ms'),
      latency(pb, 'ttft_ms'),
      cache ? 'cache' : precision ? 'precision' : 'scheduling',
    );
    const tpotMech: Mechanism = precision ? 'precision' : pa.level === 1 ? 'kernel' : 'scheduling';
    add('tpot_ms.p50', latency(pa, 'tpot_ms'), latency(pb, 'tpot_ms'), tpotMech);
    add('itl_ms.p99', pa.itl_ms.p99, pb.itl_ms.p99, precision ? 'precision' : 'scheduling');
    add(
      'output_tok_s',
      pa.output_throughput_tok_s,
      pb.output_throughput_tok_s,
      lengths
        ? 'output_length'
        : tpotDiffers
          ? tpotMech
          : differs(pa.ttft_ms.p50, pb.ttft_ms.p50)
            ? cache
              ? 'cache'
              : 'scheduling'
            : null,
    );
  }
  return out;
}
