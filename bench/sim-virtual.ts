/**
 * @module bench/sim-virtual
 * Throughput of the virtual-time planner: simulated requests per wall-clock second for
 * Llama-3.1-8B on one H100, closed loop at concurrency 64, 512 prompt tokens / 256 output
 * tokens (ignore_eos). servelab's target: ≥ 5,000 req/s. Run:
 * `node --import tsx bench/sim-virtual.ts [numRequests]`.
 */
import { RealClock } from '../src/runtime/clock.js';
import { Rng } from '../src/runtime/rng.js';
import { resolveEngineConfig } from '../src/sim/engine/config.js';
import { type PlanRequest, simulateDetailed } from '../src/sim/plan.js';

const N = Number(process.argv[2] ?? 20_000);
const IN = 512;
const OUT = 256;
const CONCURRENCY = 64;

function makeRequests(n: number): PlanRequest[] {
  const rng = new Rng(42);
  const reqs: PlanRequest[] = [];
  for (let i = 0; i < n; i++) {
    const promptIds = Array.from({ length: IN }, () => rng.int(0, 150_000));
    reqs.push({
      id: `r${i}`,
      planned_id: `r${i}`,
      phase: 'measure',
      index: i,
      spec: { index: i, input_len: IN, output_len: OUT },
      promptIds,
      maxTokens: OUT,
      eosLen: OUT,
    });
  }
  return reqs;
}

const cfg = resolveEngineConfig({ model: 'llama-3.1-8b', gpu: 'h100' });
const reqs = makeRequests(N);
const clock = new RealClock();
// One warm-up pass so the JIT has compiled the step loop before we time it.
simulateDetailed(cfg, reqs.slice(0, 2000), { kind: 'closed', concurrency: CONCURRENCY });
const t0 = clock.now();
// CPU time too: on a shared machine wall time mostly measures the neighbours.
const cpu0 = process.cpuUsage();
const res = simulateDetailed(cfg, reqs, { kind: 'closed', concurrency: CONCURRENCY });
const cpu = process.cpuUsage(cpu0);
const wallMs = clock.now() - t0;
const cpuMs = (cpu.user + cpu.system) / 1000;
const perSec = N / (wallMs / 1000);
const tpot =
  res.records.reduce((s, r) => s + ((r.last_token_at_ms ?? 0) - (r.first_token_at_ms ?? 0)) / (OUT - 1), 0) /
  N;
console.log(
  JSON.stringify({
    bench: 'sim-virtual',
    requests: N,
    wall_ms: Math.round(wallMs),
    cpu_ms: Math.round(cpuMs),
    simulated_requests_per_s: Math.round(perSec),
    simulated_requests_per_cpu_s: Math.round(N / (cpuMs / 1000)),
    target_requests_per_s: 5000,
    pass: perSec >= 5000,
    virtual_duration_s: +(res.durationMs / 1000).toFixed(1),
    mean_tpot_ms: +tpot.toFixed(2),
    steps: res.stats.steps,
  }),
);
