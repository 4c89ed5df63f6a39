/**
 * @module bench/open-loop
 * Scenario 2 (performance): open-loop lateness. The real runner (`runLoad`) and client
 * send a Poisson (or constant) schedule at 200 requests/s for ~10 s to the fast SSE server in a
 * child process; each request streams a few chunks, so ~40 streams are in flight. Lateness =
 * `sent_at_ms − planned_at_ms` per request (both on the run clock), p50/p99/max; target p99 ≤ 2 ms.
 * The runner's own event-loop delay (`client_health`) is reported next to it.
 */
import { cpus } from 'node:os';
import { createHttpTarget } from '../src/client/http.js';
import { runLoad } from '../src/runner/loops.js';
import { RealClock } from '../src/runtime/clock.js';
import { type ArrivalKind, arrivalOffsetsMs } from '../src/schedule/arrivals.js';
import { infoRow, MachineMeter, pcts, type ScenarioResult, startChild, targetRow } from './lib.js';

type CpuMsg = { cpu: NodeJS.CpuUsage };

export interface OpenLoopBenchOptions {
  rateRps: number;
  durationS: number;
  arrival: ArrivalKind;
  /** Chunks per request and their spacing (ms). */
  chunks: number;
  intervalMs: number;
  seed: number;
}

/** Scenario 2: lateness of the open loop at `rateRps`. */
export async function benchOpenLoop(o: OpenLoopBenchOptions): Promise<ScenarioResult> {
  const { child, ready } = await startChild<{ port: number }>('./sse-server.ts', [], 'port');
  try {
    const clock = new RealClock();
    const arrivalsMs = arrivalOffsetsMs({
      rateRps: o.rateRps,
      arrival: o.arrival,
      durationS: o.durationS,
      seed: o.seed,
    });
    const target = createHttpTarget({
      baseUrl: `http://127.0.0.1:${ready.port}/v1`,
      endpoint: 'chat',
      model: 'bench',
      stream: true,
      headers: { 'x-bench-interval-ms': String(o.intervalMs) },
      clock,
    });
    const specs = [{ index: 0, prompt: 'phase_ms=0', input_len: null, output_len: o.chunks }];
    // A short closed warm-up opens connections and warms the JIT before the schedule starts.
    const cpu0 = (await child.ask<CpuMsg>({ cmd: 'cpu' }, 'cpu')).cpu;
    const machine = new MachineMeter();
    const tStart = clock.now();
    const res = await runLoad(
      {
        load: { kind: 'open', arrivalsMs, maxConcurrency: null },
        specs,
        warmup: 50,
        warmupConcurrency: 10,
        drainTimeoutMs: 10_000,
      },
      { target, clock },
    );
    const spanMs = clock.now() - tStart;
    const busyCores = machine.busyCores(cpus().length);
    const cpu1 = (await child.ask<CpuMsg>({ cmd: 'cpu' }, 'cpu')).cpu;
    await target.close();
    const serverPct = ((cpu1.user + cpu1.system - cpu0.user - cpu0.system) / 1000 / spanMs) * 100;
    const clientPct = res.client_health.cpu_percent ?? 0;
    const otherCores = busyCores === null ? null : Math.max(0, busyCores - (serverPct + clientPct) / 100);
    const measured = res.records.filter((r) => r.phase === 'measure');
    const late = measured
      .filter((r) => r.sent_at_ms !== null && r.planned_at_ms !== null)
      .map((r) => (r.sent_at_ms as number) - (r.planned_at_ms as number));
    const lateness = pcts(late);
    const failed = measured.filter((r) => r.outcome !== 'ok').length;
    const eld = res.client_health.event_loop_delay_ms;
    const c = `${o.arrival} ${o.rateRps} req/s × ${o.durationS} s`;
    const S = 'open-loop';
    const rows = [
      infoRow({ scenario: S, case: c, metric: 'requests sent', value: late.length, unit: 'req' }),
      infoRow({ scenario: S, case: c, metric: 'failed requests', value: failed, unit: 'req' }),
      infoRow({ scenario: S, case: c, metric: 'lateness p50', value: lateness.p50, unit: 'ms' }),
      targetRow(
        { scenario: S, case: c, metric: 'lateness p99', value: lateness.p99, unit: 'ms' },
        { max: 2 },
      ),
      infoRow({ scenario: S, case: c, metric: 'lateness max', value: lateness.max, unit: 'ms' }),
      infoRow({ scenario: S, case: c, metric: 'event-loop delay p99', value: eld.p99, unit: 'ms' }),
      infoRow({ scenario: S, case: c, metric: 'event-loop delay max', value: eld.max, unit: 'ms' }),
      infoRow({
        scenario: S,
        case: c,
        metric: 'client CPU',
        value: res.client_health.cpu_percent,
        unit: '% core',
      }),
      infoRow({ scenario: S, case: c, metric: 'other processes', value: otherCores, unit: 'cores' }),
    ];
    return {
      name: 'open-loop',
      rows,
      details: {
        options: o,
        lateness_ms: lateness,
        failed,
        client_health: res.client_health,
        server_cpu_percent: serverPct,
        other_cores: otherCores,
        reason: res.reason,
      },
      notes: [],
    };
  } finally {
    await child.stop();
  }
}
