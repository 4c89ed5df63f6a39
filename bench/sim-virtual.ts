/**
 * @module bench/sim-virtual
 * Throughput of the simulator in virtual time, two ways, on one workload: Llama-3.1-8B on one
 * H100, closed loop at concurrency 64, synthetic 512-token prompts and 256 output tokens
 * (ignore_eos), temperature 0.
 *
 * - **engine fast path**: `simulateDetailed`, the engine driven directly (no HTTP, no client),
 *   over `numRequests` requests. servelab's target: ≥ 20,000 simulated requests per wall second.
 * - **measurement path**: what `servelab plan` does, over `numMeasured` requests: `measureOn`
 *   against `simEndpoint(…, {virtual: true})`, i.e. the runner and HTTP client streaming every
 *   token through the in-process simulator's dispatcher, scraping its `/metrics` every virtual
 *   second, then the summary, verdict and report.
 *
 * Both build their requests from the same specs (`buildWorkload`), so their simulated mean
 * TPOT should agree; timing covers the run only, not building the workload. Run:
 * `node --import tsx bench/sim-virtual.ts [numRequests] [numMeasured]` (default 20000 1000).
 */
import { simEndpoint } from '../src/pipeline/endpoint.js';
import { measureOn } from '../src/pipeline/measure.js';
import type { RequestRecord } from '../src/record/types.js';
import { RealClock } from '../src/runtime/clock.js';
import { planRequestFromSpec, simulateDetailed } from '../src/sim/batch-driver.js';
import { resolveEngineConfig } from '../src/sim/engine/config.js';
import { tokenizerFor } from '../src/tokenizer/index.js';
import { buildWorkload } from '../src/workload/index.js';

const N = Number(process.argv[2] ?? 20_000);
const M = Number(process.argv[3] ?? 1_000);
const MODEL = 'llama-3.1-8b';
const GPU = 'h100';
const IN = 512;
const OUT = 256;
const CONCURRENCY = 64;
const WARMUP = 128;

const wallClock = new RealClock();

/** Wall and CPU ms of `fn` (CPU too: on a shared machine wall time mostly measures the neighbours). */
async function timed<T>(fn: () => Promise<T> | T): Promise<{ value: T; wallMs: number; cpuMs: number }> {
  const t0 = wallClock.now();
  const cpu0 = process.cpuUsage();
  const value = await fn();
  const cpu = process.cpuUsage(cpu0);
  return { value, wallMs: wallClock.now() - t0, cpuMs: (cpu.user + cpu.system) / 1000 };
}

function meanTpot(records: readonly RequestRecord[]): number {
  const ok = records.filter((r) => r.first_token_at_ms !== null && r.last_token_at_ms !== null);
  const sum = ok.reduce(
    (s, r) => s + ((r.last_token_at_ms as number) - (r.first_token_at_ms as number)) / (OUT - 1),
    0,
  );
  return ok.length ? sum / ok.length : Number.NaN;
}

const workload = await buildWorkload({
  seed: 42,
  // The last WARMUP specs warm the measurement path up; no timed run uses them.
  count: Math.max(N, M) + WARMUP,
  model: MODEL,
  inputLen: String(IN),
  outputLen: String(OUT),
});
const cfg = resolveEngineConfig({ model: MODEL, gpu: GPU });
const tokenizer = await tokenizerFor(MODEL);
const reqs = workload.specs
  .slice(0, Math.max(N, M))
  .map((spec, i) =>
    planRequestFromSpec(spec, tokenizer, cfg, `r${i}`, { endpoint: 'chat', ignoreEos: true, temperature: 0 }),
  );

// One warm-up pass so the JIT has compiled the step loop before we time it.
simulateDetailed(cfg, reqs.slice(0, 2000), { kind: 'closed', concurrency: CONCURRENCY });
const fast = await timed(() =>
  simulateDetailed(cfg, reqs.slice(0, N), { kind: 'closed', concurrency: CONCURRENCY }),
);

const endpoint = await simEndpoint({ model: MODEL, gpu: GPU }, { virtual: true });
const measureOnce = (specs: typeof workload.specs) =>
  measureOn(
    endpoint,
    {
      plan: {
        label: null,
        specs,
        load: { kind: 'closed', concurrency: CONCURRENCY, requests: specs.length },
      },
      client: {
        endpoint: 'chat',
        model: endpoint.sim?.modelId ?? MODEL,
        stream: true,
        ignoreEos: true,
        temperature: 0,
      },
      slo: null,
      thresholds: [],
      config: {},
    },
    { env: {}, version: 'bench', monitoring: { scrape: 'auto', scrapeIntervalMs: 1000, metricsPort: null } },
  );
// A short warm-up run for the JIT, on specs of its own: the engine's prefix cache keeps their
// prompts, and the timed run must not hit them.
await measureOnce(workload.specs.slice(-WARMUP));
const slow = await timed(() => measureOnce(workload.specs.slice(0, M)));
await endpoint.close();

const fastPerS = N / (fast.wallMs / 1000);
const slowRecords = slow.value.result.records;
const chunks = slowRecords.reduce((s, r) => s + r.chunk_times_ms.length, 0);
// The fast path over the same M requests: both paths model one engine, so the TPOTs agree.
const fastSame = simulateDetailed(cfg, reqs.slice(0, M), { kind: 'closed', concurrency: CONCURRENCY });
console.log(
  JSON.stringify({
    bench: 'sim-virtual',
    requests: N,
    wall_ms: Math.round(fast.wallMs),
    cpu_ms: Math.round(fast.cpuMs),
    simulated_requests_per_s: Math.round(fastPerS),
    simulated_requests_per_cpu_s: Math.round(N / (fast.cpuMs / 1000)),
    target_requests_per_s: 20_000,
    pass: fastPerS >= 20_000,
    virtual_duration_s: +(fast.value.durationMs / 1000).toFixed(1),
    mean_tpot_ms: +meanTpot(fast.value.records).toFixed(2),
    steps: fast.value.stats.steps,
    measurement_path: {
      requests: M,
      ok: slowRecords.filter((r) => r.outcome === 'length' || r.outcome === 'ok').length,
      wall_ms: Math.round(slow.wallMs),
      cpu_ms: Math.round(slow.cpuMs),
      simulated_requests_per_s: Math.round(M / (slow.wallMs / 1000)),
      simulated_requests_per_cpu_s: Math.round(M / (slow.cpuMs / 1000)),
      chunks,
      cpu_us_per_chunk: +((slow.cpuMs * 1000) / Math.max(1, chunks)).toFixed(2),
      virtual_duration_s: +(
        (slow.value.result.window.end_ms - slow.value.result.window.start_ms) /
        1000
      ).toFixed(1),
      mean_tpot_ms: +meanTpot(slowRecords).toFixed(2),
      fast_path_mean_tpot_ms: +meanTpot(fastSame.records).toFixed(2),
      scrape_points: slow.value.series.length,
    },
  }),
);
