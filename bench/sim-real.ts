/**
 * @module bench/sim-real
 * Scenario 3 (performance, real time): the simulated server (`startSimServer` with
 * `exposeTimings`, in a child process) with N concurrent streams. With `--expose-timings` every
 * chunk carries `servelab: { step, planned_ms, emit_ms }` on the server's clock: `planned_ms` is
 * the step's planned end, `emit_ms` the moment the chunk was written. The figure is the token
 * emit-time error `emit_ms − planned_ms` (server-side, so the reader's speed does not enter it
 * unless the machine's two cores are saturated), p50/p99/max over a steady window; targets p99
 * < 2 ms at 100 and 1,000 streams, < 5 ms at 2,000. Also reported: chunks/s, steps/s, the delivery latency to the reader
 * (`received − emit`, both on CLOCK_MONOTONIC), and the server's CPU.
 *
 * The reader is a minimal node:http + eventsource-parser client, because servelab's client
 * records arrival times but not the server's stamps.
 */
import { Agent, type ClientRequest, request } from 'node:http';
import { cpus } from 'node:os';
import { createParser } from 'eventsource-parser';
import { RealClock } from '../src/runtime/clock.js';
import {
  CpuMeter,
  hrtimeMs,
  infoRow,
  logToStderr,
  MachineMeter,
  pcts,
  type Row,
  type ScenarioResult,
  sleep,
  startChild,
  targetRow,
} from './lib.js';

export interface SimRealBenchOptions {
  streamCounts: number[];
  model: string;
  gpu: string;
  /** Prompt words per request (the approximate tokenizer makes ~1 token per word). */
  promptWords: number;
  /** Wall ms after opening the streams before measuring (connections, prefill). */
  rampMs: number;
  /** Wall ms measured. */
  measureMs: number;
  /**
   * The simulator's `--api-server-count` (default 1). The modelled API server admits one request
   * per 5 ms and streams ~12.5k chunks/s per process (`sim/frontend`): with one, 2,000 streams
   * take 10 s to reach the engine and the server writes at the front-end's pace, not the engine's.
   */
  apiServerCount?: number;
  /** Progress lines (default: stderr). */
  log?: (line: string) => void;
}

interface ServelabStamp {
  step: number;
  planned_ms: number;
  emit_ms: number;
}

interface SimChunk {
  servelab?: ServelabStamp;
  choices?: { delta?: { content?: string; reasoning_content?: string; reasoning?: string } }[];
}

/** One stream count. */
export interface SimRealRun {
  streams: number;
  window_ms: number;
  tokens: number;
  tokens_per_s: number;
  steps: number;
  steps_per_s: number;
  streams_with_tokens: number;
  emit_error_ms: ReturnType<typeof pcts>;
  /** Per step: first chunk's emit − planned end (the driver's wake-up lateness), ms. */
  step_wake_late_ms: ReturnType<typeof pcts>;
  /** Per step: last chunk's emit − first chunk's (serialising and writing every stream's chunk), ms. */
  step_write_spread_ms: ReturnType<typeof pcts>;
  delivery_ms: ReturnType<typeof pcts>;
  /**
   * Reader's receive time − planned (CLOCK_MONOTONIC), ms: emit error plus delivery. Does not
   * trust the server's `emit_ms`, so it compares servers whose stamps are taken differently.
   */
  received_error_ms: ReturnType<typeof pcts>;
  /**
   * Per step delivered in the window, from the server's driver: planned release to the end of
   * its writes (the last chunk handed to the kernel), ms. What `servelab_sim_emit_lag_seconds` observes.
   */
  step_lag_ms: ReturnType<typeof pcts>;
  server_cpu_percent: number;
  /** Server process CPU over the window / token chunks emitted in it, µs. */
  server_cpu_us_per_chunk: number | null;
  reader_cpu_percent: number;
  /** Cores used by other processes on the machine during the window. */
  other_cores: number | null;
  http_errors: number;
}

type CpuMsg = { cpu: NodeJS.CpuUsage; steps: number; lag_ms: number[] };

async function runLevel(n: number, o: SimRealBenchOptions): Promise<SimRealRun> {
  // Every stream in one batch (vLLM's default max_num_seqs on an H100 is 1,024): the figure is
  // about timing, not about the engine's queue.
  const { child, ready } = await startChild<{ port: number; offset_ms: number; model: string }>(
    './sim-server-child.ts',
    [
      JSON.stringify({
        model: o.model,
        gpu: o.gpu,
        maxNumSeqs: n > 1024 ? n : undefined,
        apiServerCount: o.apiServerCount,
        seed: 1,
      }),
    ],
    'port',
  );
  const clock = new RealClock();
  const agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
  const prompt = 'hello '.repeat(o.promptWords).trim();
  const body = JSON.stringify({
    model: ready.model,
    messages: [{ role: 'user', content: prompt }],
    max_tokens: 100_000,
    ignore_eos: true,
    stream: true,
  });
  const emitErr: number[] = [];
  const delivery: number[] = [];
  const received: number[] = [];
  /** Per step: planned end and first/last chunk emit (server ms), to split the error in two. */
  const steps = new Map<number, { planned: number; first: number; last: number }>();
  const seen = new Set<number>();
  let httpErrors = 0;
  // Measurement window on CLOCK_MONOTONIC; set once the ramp is over.
  let w0 = Number.POSITIVE_INFINITY;
  let w1 = Number.POSITIVE_INFINITY;
  const reqs: ClientRequest[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const req = request(
        {
          host: '127.0.0.1',
          port: ready.port,
          method: 'POST',
          path: '/v1/chat/completions',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          if (res.statusCode !== 200) httpErrors++;
          res.setEncoding('utf8');
          const parser = createParser({
            onEvent(ev) {
              if (ev.data === '[DONE]') return;
              const now = hrtimeMs();
              const j = JSON.parse(ev.data) as SimChunk;
              const s = j.servelab;
              const d = j.choices?.[0]?.delta;
              if (!s || !d || !(d.content || d.reasoning_content || d.reasoning)) return;
              const planned = s.planned_ms + ready.offset_ms;
              if (planned < w0 || planned >= w1) return;
              emitErr.push(s.emit_ms - s.planned_ms);
              delivery.push(now - (s.emit_ms + ready.offset_ms));
              received.push(now - planned);
              const st = steps.get(s.step);
              if (!st) steps.set(s.step, { planned: s.planned_ms, first: s.emit_ms, last: s.emit_ms });
              else {
                st.first = Math.min(st.first, s.emit_ms);
                st.last = Math.max(st.last, s.emit_ms);
              }
              seen.add(i);
            },
          });
          res.on('data', (text: string) => parser.feed(text));
          res.on('error', () => {});
        },
      );
      req.on('error', () => {});
      req.end(body);
      reqs.push(req);
    }
    await sleep(clock, o.rampMs);
    const at0 = await child.ask<CpuMsg>({ cmd: 'cpu' }, 'cpu');
    const cpu0 = at0.cpu;
    const t0 = clock.now();
    const machine = new MachineMeter();
    const reader = new CpuMeter();
    w0 = hrtimeMs();
    await sleep(clock, o.measureMs);
    w1 = hrtimeMs();
    const readerUs = reader.usedUs();
    const busyCores = machine.busyCores(cpus().length);
    const windowMs = clock.now() - t0;
    const at1 = await child.ask<CpuMsg>({ cmd: 'cpu' }, 'cpu');
    const cpu1 = at1.cpu;
    // The lags of the steps delivered between the two asks (the ring ends with the newest).
    const stepLag = at1.lag_ms.slice(Math.max(0, at1.lag_ms.length - (at1.steps - at0.steps)));
    // Chunks planned inside the window may still be in the pipe: give them a moment.
    await sleep(clock, 300);
    const serverUs = cpu1.user + cpu1.system - cpu0.user - cpu0.system;
    const wake: number[] = [];
    const spread: number[] = [];
    for (const st of steps.values()) {
      wake.push(st.first - st.planned);
      spread.push(st.last - st.first);
    }
    return {
      streams: n,
      window_ms: windowMs,
      tokens: emitErr.length,
      tokens_per_s: emitErr.length / (windowMs / 1000),
      steps: steps.size,
      steps_per_s: steps.size / (windowMs / 1000),
      streams_with_tokens: seen.size,
      emit_error_ms: pcts(emitErr),
      step_wake_late_ms: pcts(wake),
      step_write_spread_ms: pcts(spread),
      delivery_ms: pcts(delivery),
      received_error_ms: pcts(received),
      step_lag_ms: pcts(stepLag),
      server_cpu_percent: (serverUs / 1000 / windowMs) * 100,
      server_cpu_us_per_chunk: emitErr.length ? serverUs / emitErr.length : null,
      reader_cpu_percent: (readerUs / 1000 / windowMs) * 100,
      other_cores:
        busyCores === null ? null : Math.max(0, busyCores - (serverUs + readerUs) / 1000 / windowMs),
      http_errors: httpErrors,
    };
  } finally {
    for (const r of reqs) r.destroy();
    agent.destroy();
    await child.stop();
  }
}

/** servelab's targets for the emit error p99 by stream count, ms (issue 3; parts 6 and 7 of the planning issue). */
const EMIT_P99_TARGET_MS: Record<number, number> = { 100: 2, 1000: 2, 2000: 5 };

/** Scenario 3: the simulator's token emit-time error in real time at each stream count. */
export async function benchSimReal(o: SimRealBenchOptions): Promise<ScenarioResult> {
  const runs: SimRealRun[] = [];
  for (const n of o.streamCounts) {
    const r = await runLevel(n, o);
    runs.push(r);
    (o.log ?? logToStderr)(
      `  sim-real ${n} streams: ${Math.round(r.tokens_per_s)} tok/s, emit error p99 ${r.emit_error_ms.p99?.toFixed(2)} ms`,
    );
  }
  const S = 'sim-real';
  const rows: Row[] = [];
  const notes: string[] = [];
  for (const r of runs) {
    const c = `${o.model} ${o.gpu} ${r.streams}`;
    rows.push(
      infoRow({ scenario: S, case: c, metric: 'tokens/s emitted', value: r.tokens_per_s, unit: '1/s' }),
      infoRow({ scenario: S, case: c, metric: 'steps/s', value: r.steps_per_s, unit: '1/s' }),
      infoRow({ scenario: S, case: c, metric: 'emit error p50', value: r.emit_error_ms.p50, unit: 'ms' }),
      EMIT_P99_TARGET_MS[r.streams] !== undefined
        ? targetRow(
            { scenario: S, case: c, metric: 'emit error p99', value: r.emit_error_ms.p99, unit: 'ms' },
            { below: EMIT_P99_TARGET_MS[r.streams] },
          )
        : infoRow({ scenario: S, case: c, metric: 'emit error p99', value: r.emit_error_ms.p99, unit: 'ms' }),
      infoRow({ scenario: S, case: c, metric: 'emit error max', value: r.emit_error_ms.max, unit: 'ms' }),
      infoRow({
        scenario: S,
        case: c,
        metric: 'step wake-up late p50',
        value: r.step_wake_late_ms.p50,
        unit: 'ms',
      }),
      infoRow({
        scenario: S,
        case: c,
        metric: 'step wake-up late p99',
        value: r.step_wake_late_ms.p99,
        unit: 'ms',
      }),
      infoRow({
        scenario: S,
        case: c,
        metric: 'step write spread p50',
        value: r.step_write_spread_ms.p50,
        unit: 'ms',
      }),
      infoRow({
        scenario: S,
        case: c,
        metric: 'delivery p99 (recv−emit)',
        value: r.delivery_ms.p99,
        unit: 'ms',
      }),
      infoRow({
        scenario: S,
        case: c,
        metric: 'received error p50 (recv−planned)',
        value: r.received_error_ms.p50,
        unit: 'ms',
      }),
      infoRow({
        scenario: S,
        case: c,
        metric: 'received error p99 (recv−planned)',
        value: r.received_error_ms.p99,
        unit: 'ms',
      }),
      infoRow({
        scenario: S,
        case: c,
        metric: 'step lag p50 (to writes done)',
        value: r.step_lag_ms.p50,
        unit: 'ms',
      }),
      infoRow({
        scenario: S,
        case: c,
        metric: 'step lag p99 (to writes done)',
        value: r.step_lag_ms.p99,
        unit: 'ms',
      }),
      infoRow({ scenario: S, case: c, metric: 'server CPU', value: r.server_cpu_percent, unit: '% core' }),
      infoRow({
        scenario: S,
        case: c,
        metric: 'server CPU per chunk',
        value: r.server_cpu_us_per_chunk,
        unit: 'µs',
      }),
      infoRow({ scenario: S, case: c, metric: 'other processes', value: r.other_cores, unit: 'cores' }),
    );
    if (r.streams_with_tokens < r.streams)
      notes.push(`sim-real ${r.streams}: only ${r.streams_with_tokens} streams got tokens in the window`);
    if (r.http_errors) notes.push(`sim-real ${r.streams}: ${r.http_errors} non-200 responses`);
  }
  return { name: 'sim-real', rows, details: { options: o, runs }, notes };
}
