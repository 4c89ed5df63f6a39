/**
 * @module bench/sim-server-child
 * Runs `startSimServer` with `exposeTimings` in its own process, as `servelab sim` would run,
 * so the benchmark's reader does not share the simulator's event loop. argv[2] is the JSON of
 * the {@link SimServerOptions}. Sends `{ port, offset_ms }` when listening, where `offset_ms`
 * turns the server clock's ms (`emit_ms`, `planned_ms`) into CLOCK_MONOTONIC ms; answers
 * `{cmd:'cpu'}` with `{ cpu, steps, lag_ms }` (process CPU, steps delivered, the driver's recent
 * per-step lags); exits on `{cmd:'exit'}`.
 */
import { RealClock } from '../src/runtime/clock.js';
import { type SimServerOptions, startSimServer } from '../src/sim/server/index.js';
import { clockOffsetMs } from './lib.js';

const opts = JSON.parse(process.argv[2] ?? '{}') as SimServerOptions;
const clock = new RealClock();
const sim = await startSimServer({ ...opts, exposeTimings: true, host: '127.0.0.1', port: 0 }, { clock });
process.send?.({ port: sim.port, offset_ms: clockOffsetMs(clock), model: sim.modelId });
process.on('message', (m: { cmd: string }) => {
  if (m.cmd === 'cpu') {
    const d = sim.driverStats();
    // The lag of the steps delivered so far (ring of the last 10,000): planned release to the
    // end of the step's writes, on the server.
    process.send?.({ cpu: process.cpuUsage(), steps: d.steps, lag_ms: d.lagMs });
  } else if (m.cmd === 'exit') void sim.close().then(() => process.exit(0));
});
process.on('disconnect', () => process.exit(0));
