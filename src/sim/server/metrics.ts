/**
 * @module sim/server/metrics
 * The simulator's `/metrics`: vLLM's metric names, types and histogram buckets
 * (`vllm-project/vllm:vllm/v1/metrics/loggers.py`) with the `model_name` label, plus
 * simulated GPU gauges under DCGM exporter names. A private prom-client Registry without Node's
 * default process metrics, so `promtool check metrics` only flags the `:` in vLLM's names.
 *
 * All times are engine (simulated) seconds, so they do not depend on `--time-scale`.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { EngineStats } from '../engine/types.js';

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
}

/** What the DCGM gauges describe. */
export interface GpuInfo {
  /** Marketing name, e.g. "NVIDIA H100 80GB HBM3". */
  name: string;
  /** Number of simulated GPUs (tensor parallel size); each gets its own series. */
  count: number;
  /** servelab's version, shown on `servelab_sim_info`. */
  version: string;
}

type CounterKey = 'prefixQueries' | 'prefixHits' | 'preemptions' | 'promptTokens' | 'generationTokens';

/** The simulator's Prometheus registry; engine gauges and counters are read at scrape time. */
export class SimMetrics {
  readonly registry = new Registry();
  private readonly histTtft: Histogram<'model_name'>;
  private readonly histItl: Histogram<'model_name'>;
  private readonly histE2e: Histogram<'model_name'>;
  private readonly histQueue: Histogram<'model_name'>;
  private readonly histPrefill: Histogram<'model_name'>;
  private readonly histDecode: Histogram<'model_name'>;
  private readonly success: Counter<'model_name' | 'finished_reason'>;
  private readonly seen: Record<CounterKey, number> = {
    prefixQueries: 0,
    prefixHits: 0,
    preemptions: 0,
    promptTokens: 0,
    generationTokens: 0,
  };

  /**
   * @param stats reads the engine's current stats (called once per scrape).
   * @param modelName the served model name, used as the `model_name` label.
   */
  constructor(
    private readonly stats: () => EngineStats,
    private readonly modelName: string,
    gpu: GpuInfo,
  ) {
    const registers = [this.registry];
    const labels = { model_name: modelName };
    // Lets a scraper tell the simulator from a real vLLM (monitor/maps.ts SIM_MARKER).
    new Gauge({
      name: 'servelab_sim_info',
      help: 'Always 1: this endpoint is servelab-sim impersonating vLLM.',
      labelNames: ['model_name', 'gpu_name', 'version'],
      registers,
    }).set({ model_name: modelName, gpu_name: gpu.name, version: gpu.version }, 1);
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
    gauge('vllm:num_requests_running', 'Number of requests in model execution batches.', (s) => s.running);
    gauge('vllm:num_requests_waiting', 'Number of requests waiting to be processed.', (s) => s.waiting);
    gauge('vllm:kv_cache_usage_perc', 'KV-cache usage. 1 means 100 percent usage.', (s) => s.kvUsage);

    const seen = this.seen;
    const counter = (name: string, help: string, key: CounterKey) => {
      const c = new Counter({
        name,
        help,
        labelNames: ['model_name'],
        registers,
        collect() {
          // The engine keeps cumulative totals; add what is new since the last scrape.
          const now = snap()[key];
          if (now > seen[key]) this.inc(labels, now - seen[key]);
          seen[key] = Math.max(seen[key], now);
        },
      });
      c.inc(labels, 0);
    };
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
    counter('vllm:num_preemptions_total', 'Cumulative number of preemptions from the engine.', 'preemptions');
    counter('vllm:prompt_tokens_total', 'Number of prefill tokens processed.', 'promptTokens');
    counter('vllm:generation_tokens_total', 'Number of generation tokens processed.', 'generationTokens');

    this.success = new Counter({
      name: 'vllm:request_success_total',
      help: 'Count of successfully processed requests.',
      labelNames: ['model_name', 'finished_reason'],
      registers,
    });
    for (const r of ['stop', 'length', 'abort'])
      this.success.inc({ model_name: modelName, finished_reason: r }, 0);

    const hist = (name: string, help: string, buckets: number[]) => {
      const h = new Histogram({ name, help, labelNames: ['model_name'], buckets, registers });
      h.zero(labels);
      return h;
    };
    this.histTtft = hist(
      'vllm:time_to_first_token_seconds',
      'Histogram of time to first token in seconds.',
      TTFT_BUCKETS_S,
    );
    this.histItl = hist(
      'vllm:inter_token_latency_seconds',
      'Histogram of inter-token latency in seconds.',
      ITL_BUCKETS_S,
    );
    this.histE2e = hist(
      'vllm:e2e_request_latency_seconds',
      'Histogram of e2e request latency in seconds.',
      REQUEST_TIME_BUCKETS_S,
    );
    this.histQueue = hist(
      'vllm:request_queue_time_seconds',
      'Histogram of time spent in WAITING phase for request.',
      REQUEST_TIME_BUCKETS_S,
    );
    this.histPrefill = hist(
      'vllm:request_prefill_time_seconds',
      'Histogram of time spent in PREFILL phase for request.',
      REQUEST_TIME_BUCKETS_S,
    );
    this.histDecode = hist(
      'vllm:request_decode_time_seconds',
      'Histogram of time spent in DECODE phase for request.',
      REQUEST_TIME_BUCKETS_S,
    );

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
        const pct = Math.round(snap().gpuUtil * 100);
        for (const l of gpuLabels) this.set(l, pct);
      },
    });
  }

  /** Record a finished (or aborted) request's engine-side times. */
  observeFinished(t: FinishedRequestTimes): void {
    const l = { model_name: this.modelName };
    this.success.inc({ ...l, finished_reason: t.finishedReason });
    if (t.ttftS !== undefined) this.histTtft.observe(l, t.ttftS);
    this.histE2e.observe(l, t.e2eS);
    if (t.queueS !== undefined) this.histQueue.observe(l, t.queueS);
    if (t.prefillS !== undefined) this.histPrefill.observe(l, t.prefillS);
    if (t.decodeS !== undefined) this.histDecode.observe(l, t.decodeS);
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
