/**
 * @module sim/server/metrics
 * The simulator's `/metrics`, named, typed and bucketed as the impersonated engine
 * (`--engine`) exposes them, with the `model_name` label, plus simulated GPU gauges under DCGM
 * exporter names:
 * - vllm-v1: `vllm-project/vllm:vllm/v1/metrics/loggers.py` (`vllm:kv_cache_usage_perc`,
 *   `vllm:prefix_cache_{queries,hits}_total`, `vllm:inter_token_latency_seconds` …);
 * - vllm-v0: `vllm-project/vllm:vllm/engine/metrics.py` (v0.6–0.10: `vllm:gpu_cache_usage_perc`,
 *   `vllm:cpu_cache_usage_perc`, `vllm:gpu_prefix_cache_hit_rate`, `vllm:num_requests_swapped`,
 *   `vllm:time_per_output_token_seconds`, and v0's shorter buckets);
 * - sglang: `sgl-project/sglang:python/sglang/srt/metrics/collector.py` (`sglang:num_running_reqs`,
 *   `sglang:num_queue_reqs`, `sglang:token_usage`, `sglang:cache_hit_rate`,
 *   `sglang:{prompt,generation,cached}_tokens_total`, `sglang:time_to_first_token_seconds` …). A private prom-client Registry without Node's
 * default process metrics, so `promtool check metrics` only flags the `:` in vLLM's names.
 *
 * All times are engine (simulated) seconds, so they do not depend on `--time-scale`.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { EngineProfile } from '../config/vocab.js';
import type { EngineStats } from '../engine/types.js';
import { type LlamaCppTotals, registerLlamaCppMetrics } from './llamacpp.js';

/** vLLM's `time_to_first_token_seconds` buckets. */
export const TTFT_BUCKETS_S = [
  0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640,
  2560,
];
/** vLLM's `inter_token_latency_seconds` buckets. */
export const ITL_BUCKETS_S = [
  0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80,
];
/** vLLM's buckets for e2e latency and the queue / prefill / decode phase times. */
export const REQUEST_TIME_BUCKETS_S = [
  0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960, 1920, 7680,
];

/** vLLM v0's buckets (`vllm/engine/metrics.py`): TTFT, TPOT, and request latency / phase times. */
export const V0_TTFT_BUCKETS_S = [
  0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10,
];
export const V0_TPOT_BUCKETS_S = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5];
export const V0_REQUEST_TIME_BUCKETS_S = [0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60];
/** SGLang's default buckets (`collector.py`): TTFT, inter-token latency, e2e latency (also queue time). */
export const SGLANG_TTFT_BUCKETS_S = [
  0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8, 10, 20, 40, 60, 80, 100, 200, 400,
];
export const SGLANG_ITL_BUCKETS_S = [
  0.002, 0.004, 0.006, 0.008, 0.01, 0.015, 0.02, 0.025, 0.03, 0.035, 0.04, 0.06, 0.08, 0.1, 0.2, 0.4, 0.6,
  0.8, 1, 2, 4, 6, 8,
];
export const SGLANG_E2E_BUCKETS_S = [
  0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8, 10, 20, 40, 60, 80, 100, 200, 400, 600, 1200, 1800, 2400,
];

/** One finished request's engine-side times, in seconds. */
export interface FinishedRequestTimes {
  finishedReason: 'stop' | 'length' | 'abort';
  /** Undefined when the request never produced a token. */
  ttftS?: number;
  e2eS: number;
  queueS?: number;
  prefillS?: number;
  decodeS?: number;
  /** Gaps between successive output tokens. */
  itlS: readonly number[];
  /** Prompt + output tokens of the request (llamacpp's `n_tokens_max`). */
  seqTokens?: number;
}

/** What the DCGM gauges describe. */
export interface SimGpuInfo {
  /** Marketing name, e.g. "NVIDIA H100 80GB HBM3". */
  name: string;
  /** Number of simulated GPUs (tensor parallel size); each gets its own series. */
  count: number;
  /** servelab's version, shown on `servelab_sim_info`. */
  version: string;
  /**
   * Whether the simulated GPU runs a step at the read instant, read at each scrape. The gauge is
   * `DCGM_FI_DEV_GPU_UTIL`: NVML's utilisation, "percent of time over the past sample period
   * during which one or more kernels was executing on the GPU", whose sample period "may be
   * between 1 second and 1/6 second, depending on the product" (NVIDIA NVML API reference,
   * `nvmlUtilization_t`: https://docs.nvidia.com/deploy/nvml-api/structnvmlUtilization__t.html).
   * The simulator takes that definition at a sample period shorter than any step: 100 while a step
   * runs, 0 from the instant the last one ends. Scrapes at a fixed interval then sample the busy
   * time evenly, so their mean over a run is its busy share (a period-long average would read a
   * busy past after the engine went idle, and a real GPU's reading lags an idle edge by up to 1 s).
   */
  busyNow: () => boolean;
}

type CounterKey = 'prefixQueries' | 'prefixHits' | 'preemptions' | 'promptTokens' | 'generationTokens';

/** The simulator's Prometheus registry; engine gauges and counters are read at scrape time. */
export class SimMetrics {
  readonly registry = new Registry();
  private readonly histTtft: Histogram<'model_name'>;
  private readonly histItl: Histogram<'model_name'>;
  private readonly histE2e: Histogram<'model_name'>;
  private readonly histQueue: Histogram<'model_name'>;
  /** vLLM only. */
  private readonly histPrefill?: Histogram<'model_name'>;
  private readonly histDecode?: Histogram<'model_name'>;
  /** vLLM: by `finished_reason`; SGLang: `num_requests_total`, with aborts also counted apart. */
  private readonly success: Counter<'model_name' | 'finished_reason'> | Counter<'model_name'>;
  private readonly aborted?: Counter<'model_name'>;
  /** llamacpp: the totals its `/metrics` reports beyond the engine's stats (engine seconds). */
  private readonly llamaTotals: LlamaCppTotals = { promptS: 0, predictedS: 0, nTokensMax: 0 };

  /**
   * @param stats reads the engine's current stats (called once per scrape).
   * @param modelName the served model name, used as the `model_name` label.
   * @param profile the engine whose names, types and buckets to expose.
   */
  constructor(
    private readonly stats: () => EngineStats,
    private readonly modelName: string,
    gpu: SimGpuInfo,
    private readonly profile: EngineProfile = 'vllm-v1',
  ) {
    const registers = [this.registry];
    const labels = { model_name: modelName };
    // Lets a scraper tell the simulator from a real vLLM (monitor/maps.ts SIM_MARKER).
    if (profile === 'llamacpp') {
      // llama.cpp's names only (`sim/server/llamacpp`); the latency histograms the other
      // profiles expose are kept off the page, as llama-server has none.
      registerLlamaCppMetrics(this.registry, () => this.stats(), this.llamaTotals);
      const hidden = [new Registry()];
      const h = (name: string) =>
        new Histogram({ name, help: name, labelNames: ['model_name'], registers: hidden });
      this.success = new Counter({
        name: 'success',
        help: 'success',
        labelNames: ['model_name'],
        registers: hidden,
      });
      this.histTtft = h('ttft');
      this.histItl = h('itl');
      this.histE2e = h('e2e');
      this.histQueue = h('queue');
      return;
    }
    if (profile === 'vllm-v1')
      new Gauge({
        name: 'servelab_sim_info',
        help: 'Always 1: this endpoint is servelab-sim impersonating vLLM.',
        labelNames: ['model_name', 'gpu_name', 'version'],
        registers,
      }).set({ model_name: modelName, gpu_name: gpu.name, version: gpu.version }, 1);
    else
      new Gauge({
        name: 'servelab_sim_info',
        help: `Always 1: this endpoint is servelab-sim impersonating ${profile}.`,
        labelNames: ['model_name', 'gpu_name', 'version', 'engine'],
        registers,
      }).set({ model_name: modelName, gpu_name: gpu.name, version: gpu.version, engine: profile }, 1);
    const snap = (): EngineStats => this.stats();
    const gauge = (name: string, help: string, read: (s: EngineStats) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['model_name'],
        registers,
        collect() {
          this.set(labels, read(snap()));
        },
      });
    const counter = (name: string, help: string, key: CounterKey) =>
      totalCounter(registers, labels, name, help, () => snap()[key]);
    const hist = (name: string, help: string, buckets: number[]) => {
      const h = new Histogram({ name, help, labelNames: ['model_name'], buckets, registers });
      h.zero(labels);
      return h;
    };
    const hitRate = (s: EngineStats) => (s.prefixQueries > 0 ? s.prefixHits / s.prefixQueries : 0);

    if (profile === 'sglang') {
      gauge('sglang:num_running_reqs', 'The number of running requests.', (s) => s.running);
      gauge('sglang:num_queue_reqs', 'The number of requests in the waiting queue.', (s) => s.waiting);
      gauge('sglang:num_used_tokens', 'The number of used tokens.', (s) =>
        Math.round(s.kvUsage * s.totalBlocks * s.blockSize),
      );
      gauge(
        'sglang:max_total_num_tokens',
        'Maximum total number of tokens in the KV cache pool.',
        (s) => s.totalBlocks * s.blockSize,
      );
      gauge('sglang:token_usage', 'The token usage.', (s) => s.kvUsage);
      gauge('sglang:cache_hit_rate', 'The prefix cache hit rate.', hitRate);
      counter('sglang:prompt_tokens_total', 'Number of prefill tokens processed.', 'promptTokens');
      counter('sglang:generation_tokens_total', 'Number of generation tokens processed.', 'generationTokens');
      counter('sglang:cached_tokens_total', 'Number of cached prompt tokens.', 'prefixHits');
      counter('sglang:num_retracted_requests_total', 'Number of retracted requests.', 'preemptions');
      this.success = new Counter({
        name: 'sglang:num_requests_total',
        help: 'Number of requests processed.',
        labelNames: ['model_name'],
        registers,
      });
      this.success.inc(labels, 0);
      this.aborted = new Counter({
        name: 'sglang:num_aborted_requests_total',
        help: 'Number of requests aborted.',
        labelNames: ['model_name'],
        registers,
      });
      this.aborted.inc(labels, 0);
      this.histTtft = hist(
        'sglang:time_to_first_token_seconds',
        'Histogram of time to first token in seconds.',
        SGLANG_TTFT_BUCKETS_S,
      );
      this.histItl = hist(
        'sglang:inter_token_latency_seconds',
        'Histogram of inter-token latency in seconds.',
        SGLANG_ITL_BUCKETS_S,
      );
      this.histE2e = hist(
        'sglang:e2e_request_latency_seconds',
        'Histogram of End-to-end request latency in seconds',
        SGLANG_E2E_BUCKETS_S,
      );
      this.histQueue = hist(
        'sglang:queue_time_seconds',
        'Histogram of queueing time in seconds.',
        SGLANG_E2E_BUCKETS_S,
      );
    } else {
      const v0 = profile === 'vllm-v0';
      gauge('vllm:num_requests_running', 'Number of requests in model execution batches.', (s) => s.running);
      if (v0) gauge('vllm:num_requests_swapped', 'Number of requests swapped to CPU.', () => 0);
      gauge('vllm:num_requests_waiting', 'Number of requests waiting to be processed.', (s) => s.waiting);
      if (v0) {
        gauge(
          'vllm:gpu_cache_usage_perc',
          'GPU KV-cache usage. 1 means 100 percent usage.',
          (s) => s.kvUsage,
        );
        gauge('vllm:cpu_cache_usage_perc', 'CPU KV-cache usage. 1 means 100 percent usage.', () => 0);
        gauge('vllm:gpu_prefix_cache_hit_rate', 'GPU prefix cache block hit rate.', hitRate);
      } else {
        gauge('vllm:kv_cache_usage_perc', 'KV-cache usage. 1 means 100 percent usage.', (s) => s.kvUsage);
        counter(
          'vllm:prefix_cache_queries_total',
          'Prefix cache queries, in terms of number of queried tokens.',
          'prefixQueries',
        );
        counter(
          'vllm:prefix_cache_hits_total',
          'Prefix cache hits, in terms of number of cached tokens.',
          'prefixHits',
        );
      }
      counter(
        'vllm:num_preemptions_total',
        'Cumulative number of preemptions from the engine.',
        'preemptions',
      );
      counter('vllm:prompt_tokens_total', 'Number of prefill tokens processed.', 'promptTokens');
      counter('vllm:generation_tokens_total', 'Number of generation tokens processed.', 'generationTokens');
      if (!v0 && snap().spec) registerSpecDecodeMetrics(registers, labels, snap);

      this.success = new Counter({
        name: 'vllm:request_success_total',
        help: 'Count of successfully processed requests.',
        labelNames: ['model_name', 'finished_reason'],
        registers,
      });
      for (const r of ['stop', 'length', 'abort'])
        this.success.inc({ model_name: modelName, finished_reason: r }, 0);

      const reqBuckets = v0 ? V0_REQUEST_TIME_BUCKETS_S : REQUEST_TIME_BUCKETS_S;
      this.histTtft = hist(
        'vllm:time_to_first_token_seconds',
        'Histogram of time to first token in seconds.',
        v0 ? V0_TTFT_BUCKETS_S : TTFT_BUCKETS_S,
      );
      this.histItl = v0
        ? hist(
            'vllm:time_per_output_token_seconds',
            'Histogram of time per output token in seconds.',
            V0_TPOT_BUCKETS_S,
          )
        : hist(
            'vllm:inter_token_latency_seconds',
            'Histogram of inter-token latency in seconds.',
            ITL_BUCKETS_S,
          );
      this.histE2e = hist(
        'vllm:e2e_request_latency_seconds',
        'Histogram of e2e request latency in seconds.',
        reqBuckets,
      );
      this.histQueue = hist(
        'vllm:request_queue_time_seconds',
        'Histogram of time spent in WAITING phase for request.',
        reqBuckets,
      );
      this.histPrefill = hist(
        'vllm:request_prefill_time_seconds',
        'Histogram of time spent in PREFILL phase for request.',
        reqBuckets,
      );
      this.histDecode = hist(
        'vllm:request_decode_time_seconds',
        'Histogram of time spent in DECODE phase for request.',
        reqBuckets,
      );
    }

    // DCGM exporter names; one series per simulated GPU (the engine reports memory per GPU).
    // DCGM's own `modelName` label is left out: promtool flags camelCase label names.
    const gpuLabels = Array.from({ length: gpu.count }, (_, i) => ({ gpu: String(i), device: `nvidia${i}` }));
    new Gauge({
      name: 'DCGM_FI_DEV_FB_USED',
      help: 'Framebuffer memory used (in MiB).',
      labelNames: ['gpu', 'device'],
      registers,
      collect() {
        const mib = snap().gpuMemoryUsedGiB * 1024;
        for (const l of gpuLabels) this.set(l, Math.round(mib));
      },
    });
    new Gauge({
      name: 'DCGM_FI_DEV_GPU_UTIL',
      help: 'GPU utilization (in %).',
      labelNames: ['gpu', 'device'],
      registers,
      collect() {
        // NVML's definition at a sample period shorter than a step (SimGpuInfo.busyNow).
        const pct = gpu.busyNow() ? 100 : 0;
        for (const l of gpuLabels) this.set(l, pct);
      },
    });
  }

  /** Record a finished (or aborted) request's engine-side times. */
  observeFinished(t: FinishedRequestTimes): void {
    const l = { model_name: this.modelName };
    if (this.profile === 'llamacpp') {
      this.llamaTotals.promptS += t.prefillS ?? 0;
      this.llamaTotals.predictedS += t.decodeS ?? 0;
      if (t.seqTokens !== undefined)
        this.llamaTotals.nTokensMax = Math.max(this.llamaTotals.nTokensMax, t.seqTokens);
      return;
    }
    if (this.profile === 'sglang') {
      (this.success as Counter<'model_name'>).inc(l);
      if (t.finishedReason === 'abort') this.aborted?.inc(l);
    } else
      (this.success as Counter<'model_name' | 'finished_reason'>).inc({
        ...l,
        finished_reason: t.finishedReason,
      });
    if (t.ttftS !== undefined) this.histTtft.observe(l, t.ttftS);
    this.histE2e.observe(l, t.e2eS);
    if (t.queueS !== undefined) this.histQueue.observe(l, t.queueS);
    if (t.prefillS !== undefined) this.histPrefill?.observe(l, t.prefillS);
    if (t.decodeS !== undefined) this.histDecode?.observe(l, t.decodeS);
    // One labelled child for all of a request's gaps: observe(labels, v) hashes the labels each
    // time, and plan observes every token gap (255k per 1,000 requests of 256 tokens).
    const itl = this.histItl.labels(l);
    for (const g of t.itlS) itl.observe(g);
  }

  /** The exposition text and its content type. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/**
 * vLLM's speculative-decoding counters (`SpecDecodingProm`,
 * `vllm-project/vllm:vllm/v1/spec_decode/metrics.py` @016a8587edb04ae53c913a1da9355a07dc0ca4ae),
 * exposed as Python's prometheus_client names counters (`_total` appended): drafts, draft
 * tokens, accepted tokens, and accepted tokens per draft position (label `position`, 0-based),
 * present only with `--speculative-config`, as in vLLM.
 */
/**
 * A counter over one of the engine's cumulative totals: each scrape adds what is new since the
 * last one (a total never goes back, so a smaller reading adds nothing). Starts at 0, so the
 * series exists before the first event.
 */
function totalCounter(
  registers: Registry[],
  labels: { model_name: string },
  name: string,
  help: string,
  read: () => number,
): void {
  let seen = 0;
  new Counter({
    name,
    help,
    labelNames: ['model_name'],
    registers,
    collect() {
      const now = read();
      if (now > seen) this.inc(labels, now - seen);
      seen = Math.max(seen, now);
    },
  }).inc(labels, 0);
}

function registerSpecDecodeMetrics(
  registers: Registry[],
  labels: { model_name: string },
  snap: () => EngineStats,
): void {
  type SpecStats = NonNullable<EngineStats['spec']>;
  const k = snap().spec?.acceptedPerPos.length ?? 0;
  const seen = { perPos: new Array<number>(k).fill(0) };
  const total = (name: string, help: string, key: 'drafts' | 'draftTokens' | 'acceptedTokens') =>
    totalCounter(registers, labels, name, help, () => (snap().spec as SpecStats)[key]);
  total('vllm:spec_decode_num_drafts_total', 'Number of spec decoding drafts.', 'drafts');
  total('vllm:spec_decode_num_draft_tokens_total', 'Number of draft tokens.', 'draftTokens');
  total('vllm:spec_decode_num_accepted_tokens_total', 'Number of accepted tokens.', 'acceptedTokens');
  const perPos = new Counter({
    name: 'vllm:spec_decode_num_accepted_tokens_per_pos_total',
    help: 'Accepted tokens per draft position.',
    labelNames: ['model_name', 'position'],
    registers,
    collect() {
      const now = (snap().spec as SpecStats).acceptedPerPos;
      for (let i = 0; i < k; i++) {
        if (now[i] > seen.perPos[i]) this.inc({ ...labels, position: String(i) }, now[i] - seen.perPos[i]);
        seen.perPos[i] = Math.max(seen.perPos[i], now[i]);
      }
    },
  });
  for (let i = 0; i < k; i++) perPos.inc({ ...labels, position: String(i) }, 0);
}
