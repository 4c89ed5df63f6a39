/**
 * @module bench/client
 * Scenario 1 (performance): servelab's streaming client against a fast loopback SSE
 * server in a child process, side by side with a naive `fetch` client.
 *
 * For each stream count N, all N streams are opened at once and each receives one chunk every
 * `intervalMs` (20 chunks/s by default) on a grid whose phases are spread evenly over one
 * interval (stream i at i/N × interval). Figures, over a steady window in which every stream is
 * active:
 * - errors: streams that did not end `ok` with every chunk;
 * - client µs per received chunk = process CPU (user + system) over the window / chunks received
 *   in it;
 * - received-time error = client chunk time converted to CLOCK_MONOTONIC (fixed offset measured
 *   at start) − the server's write stamp for the same chunk, p50/p99/max;
 * - the server's own lateness against its grid, and the client's event-loop delay, so a tail
 *   can be blamed on the right side.
 */
import { cpus } from 'node:os';
import { createHttpTarget } from '../src/client/http.js';
import { RealClock } from '../src/runtime/clock.js';
import {
  type Child,
  CpuMeter,
  clockOffsetMs,
  hrtimeMs,
  infoRow,
  LoopDelay,
  logToStderr,
  MachineMeter,
  pcts,
  type Row,
  type ScenarioResult,
  startChild,
  targetRow,
} from './lib.js';
import { naiveStream } from './naive-fetch.js';

export type ClientKind = 'servelab' | 'fetch';

export interface ClientBenchOptions {
  /** Concurrent stream counts to run, e.g. [100, 1000, 2000]. */
  streamCounts: number[];
  /** Gap between a stream's chunks, ms (50 = 20 chunks/s). */
  intervalMs: number;
  /** Length of each stream, ms (sets the chunk count). */
  durationMs: number;
  /** Clients to run at each count. */
  clients: ClientKind[];
  /** Run an unreported 100-stream pass of each client first, to warm the JIT (default true). */
  warmup?: boolean;
  /** Progress lines (default: stderr). */
  log?: (line: string) => void;
}

/** One client at one stream count. */
export interface ClientRun {
  client: ClientKind;
  streams: number;
  errors: number;
  first_error: string | null;
  chunks_expected: number;
  chunks_received: number;
  window_ms: number;
  window_chunks: number;
  chunks_per_s: number;
  client_cpu_us_per_chunk: number | null;
  client_cpu_percent: number;
  /** Client µs per chunk after subtracting the idle process's CPU rate (timers, meters) over the window. */
  client_cpu_us_per_chunk_net: number | null;
  server_cpu_us_per_chunk: number | null;
  recv_error_ms: ReturnType<typeof pcts>;
  server_late_ms: ReturnType<typeof pcts>;
  event_loop_delay: ReturnType<LoopDelay['stop']>;
  unmatched_streams: number;
  /** Cores used by other processes on the machine during the window (not client, not server). */
  other_cores: number | null;
}

interface StreamOut {
  id: string;
  chunk_times_ms: number[];
  ok: boolean;
  error: string | null;
}

type Stamps = { stamps: Record<string, number[]>; late_ms: number[] };
type CpuMsg = { cpu: NodeJS.CpuUsage };

/** Run one client kind at one stream count against the running server. */
async function runOnce(
  server: Child,
  port: number,
  kind: ClientKind,
  n: number,
  o: ClientBenchOptions,
  idleCpuPercent: number,
) {
  const clock = new RealClock();
  const offset = clockOffsetMs(clock);
  const chunks = Math.max(4, Math.round(o.durationMs / o.intervalMs));
  // Give connection setup time before the first slot: ~0.5 ms per stream, at least 300 ms.
  const rampMs = Math.max(300, n * 0.5);
  const epochHr = hrtimeMs() + rampMs;
  const epochClient = epochHr - offset;
  const headers = { 'x-bench-interval-ms': String(o.intervalMs), 'x-bench-epoch-ms': epochHr.toFixed(3) };
  // One controller per stream: a signal shared by thousands of requests trips Node's listener-leak warning.
  const acs = Array.from({ length: n }, () => new AbortController());
  // Bound the run whatever happens: a client that falls behind is cut off 20 s after the last slot.
  const cancelHard = clock.setTimer(
    () => {
      for (const ac of acs) ac.abort(new Error('bench time limit'));
    },
    rampMs + o.durationMs + 20_000,
  );
  const phaseOf = (i: number) => ((i * o.intervalMs) / n).toFixed(3);

  let sends: Promise<StreamOut>[];
  let close = async () => {};
  if (kind === 'servelab') {
    const target = createHttpTarget({
      baseUrl: `http://127.0.0.1:${port}/v1`,
      endpoint: 'chat',
      model: 'bench',
      stream: true,
      headers,
      clock,
    });
    close = () => target.close();
    sends = Array.from({ length: n }, (_, i) =>
      target
        .send({
          id: `${kind}-${n}-${i}`,
          planned_id: `${kind}-${n}-${i}`,
          attempt: 1,
          phase: 'measure',
          spec: { index: i, prompt: `phase_ms=${phaseOf(i)}`, input_len: null, output_len: chunks },
          planned_at_ms: null,
          signal: acs[i].signal,
        })
        .then((r) => ({
          id: r.id,
          chunk_times_ms: r.chunk_times_ms,
          ok: r.outcome === 'ok',
          error: r.error,
        })),
    );
  } else {
    const url = `http://127.0.0.1:${port}/v1/chat/completions`;
    sends = Array.from({ length: n }, (_, i) => {
      const body = JSON.stringify({
        model: 'bench',
        messages: [{ role: 'user', content: `phase_ms=${phaseOf(i)}` }],
        max_tokens: chunks,
        stream: true,
      });
      return naiveStream(url, `${kind}-${n}-${i}`, body, headers, clock, acs[i].signal);
    });
  }

  // Steady window: from one interval (+200 ms) after the first slot, when every stream is on the
  // grid, to 100 ms before the last slot.
  const w0 = epochClient + o.intervalMs + 200;
  const w1 = Math.max(w0 + o.intervalMs, epochClient + (chunks - 1) * o.intervalMs - 100);
  await clock.sleepUntil(w0);
  const serverCpu0 = (await server.ask<CpuMsg>({ cmd: 'cpu' }, 'cpu')).cpu;
  const cpu = new CpuMeter();
  const machine = new MachineMeter();
  const loop = new LoopDelay();
  const t0 = clock.now();
  await clock.sleepUntil(w1);
  const cpuUs = cpu.usedUs();
  const busyCores = machine.busyCores(cpus().length);
  const t1 = clock.now();
  const delay = loop.stop();
  const serverCpu1 = (await server.ask<CpuMsg>({ cmd: 'cpu' }, 'cpu')).cpu;
  const outs = await Promise.all(sends);
  cancelHard();
  await close();
  const { stamps, late_ms } = await server.ask<Stamps>({ cmd: 'stamps' }, 'stamps');

  let windowChunks = 0;
  let received = 0;
  let unmatched = 0;
  const errors: number[] = [];
  for (const s of outs) {
    received += s.chunk_times_ms.length;
    for (const t of s.chunk_times_ms) if (t >= t0 && t < t1) windowChunks++;
    const sent = stamps[s.id];
    if (!sent || sent.length !== s.chunk_times_ms.length) {
      unmatched++;
      continue;
    }
    for (let k = 0; k < sent.length; k++) {
      const tc = s.chunk_times_ms[k];
      if (tc >= t0 && tc < t1) errors.push(tc + offset - sent[k]);
    }
  }
  const failed = outs.filter((s) => !s.ok || s.chunk_times_ms.length !== chunks);
  const serverUs = serverCpu1.user + serverCpu1.system - (serverCpu0.user + serverCpu0.system);
  const windowMs = t1 - t0;
  const run: ClientRun = {
    client: kind,
    streams: n,
    errors: failed.length,
    first_error: failed[0]?.error ?? (failed.length ? 'short stream' : null),
    chunks_expected: n * chunks,
    chunks_received: received,
    window_ms: windowMs,
    window_chunks: windowChunks,
    chunks_per_s: windowChunks / (windowMs / 1000),
    client_cpu_us_per_chunk: windowChunks > 0 ? cpuUs / windowChunks : null,
    client_cpu_percent: (cpuUs / 1000 / windowMs) * 100,
    client_cpu_us_per_chunk_net:
      windowChunks > 0 ? Math.max(0, cpuUs - (idleCpuPercent / 100) * windowMs * 1000) / windowChunks : null,
    server_cpu_us_per_chunk: windowChunks > 0 ? serverUs / windowChunks : null,
    recv_error_ms: pcts(errors),
    server_late_ms: pcts(late_ms),
    event_loop_delay: delay,
    unmatched_streams: unmatched,
    other_cores: busyCores === null ? null : Math.max(0, busyCores - (cpuUs + serverUs) / 1000 / windowMs),
  };
  return run;
}

/**
 * CPU percent of this process sitting idle for 1 s with the same meters running as in a run:
 * the floor that per-chunk figures at low rates include.
 */
async function idleCpu(): Promise<number> {
  const clock = new RealClock();
  const loop = new LoopDelay();
  const cpu = new CpuMeter();
  const t0 = clock.now();
  await clock.sleepUntil(t0 + 1000);
  const us = cpu.usedUs();
  loop.stop();
  return (us / 1000 / (clock.now() - t0)) * 100;
}

/**
 * Scenario 1: servelab's client (and the naive fetch baseline) at each stream count.
 * servelab's targets: ≥ 2,000 streams without errors; ≤ 20 µs client CPU per chunk; received-time
 * error p99 ≤ 1 ms at 100 streams.
 */
export async function benchClient(o: ClientBenchOptions): Promise<ScenarioResult> {
  const { child, ready } = await startChild<{ port: number }>('./sse-server.ts', [], 'port');
  const runs: ClientRun[] = [];
  let idleCpuPercent = 0;
  try {
    // Warm-up (not reported): JIT-compile both clients' hot paths and the server's before timing.
    if (o.warmup !== false)
      for (const kind of o.clients)
        await runOnce(child, ready.port, kind, 100, { ...o, durationMs: Math.min(o.durationMs, 1500) }, 0);
    idleCpuPercent = await idleCpu();
    for (const n of o.streamCounts)
      for (const kind of o.clients) {
        const r = await runOnce(child, ready.port, kind, n, o, idleCpuPercent);
        runs.push(r);
        (o.log ?? logToStderr)(
          `  client ${kind} ${n} streams: ${r.errors} errors, ${r.client_cpu_us_per_chunk?.toFixed(1)} µs/chunk, recv p99 ${r.recv_error_ms.p99?.toFixed(2)} ms`,
        );
      }
  } finally {
    await child.stop();
  }
  const rows: Row[] = [];
  const S = 'client';
  for (const r of runs) {
    const c = `${r.client} ${r.streams}`;
    const mine = r.client === 'servelab';
    rows.push(
      mine && r.streams >= 2000
        ? targetRow(
            { scenario: S, case: c, metric: 'failed streams', value: r.errors, unit: 'streams' },
            { max: 0 },
          )
        : infoRow({ scenario: S, case: c, metric: 'failed streams', value: r.errors, unit: 'streams' }),
      infoRow({ scenario: S, case: c, metric: 'chunks/s received', value: r.chunks_per_s, unit: '1/s' }),
      mine
        ? targetRow(
            {
              scenario: S,
              case: c,
              metric: 'client CPU/chunk',
              value: r.client_cpu_us_per_chunk,
              unit: 'µs',
            },
            { max: 20 },
          )
        : infoRow({
            scenario: S,
            case: c,
            metric: 'client CPU/chunk',
            value: r.client_cpu_us_per_chunk,
            unit: 'µs',
          }),
      infoRow({
        scenario: S,
        case: c,
        metric: 'client CPU/chunk net',
        value: r.client_cpu_us_per_chunk_net,
        unit: 'µs',
      }),
      infoRow({ scenario: S, case: c, metric: 'recv error p50', value: r.recv_error_ms.p50, unit: 'ms' }),
      mine && r.streams === 100
        ? targetRow(
            { scenario: S, case: c, metric: 'recv error p99', value: r.recv_error_ms.p99, unit: 'ms' },
            { max: 1 },
          )
        : infoRow({ scenario: S, case: c, metric: 'recv error p99', value: r.recv_error_ms.p99, unit: 'ms' }),
      infoRow({
        scenario: S,
        case: c,
        metric: 'server lateness p99',
        value: r.server_late_ms.p99,
        unit: 'ms',
      }),
      infoRow({
        scenario: S,
        case: c,
        metric: 'event-loop delay p99',
        value: r.event_loop_delay.p99_ms,
        unit: 'ms',
      }),
      infoRow({ scenario: S, case: c, metric: 'other processes', value: r.other_cores, unit: 'cores' }),
    );
  }
  const notes: string[] = [];
  for (const n of o.streamCounts) {
    const mine = runs.find((r) => r.client === 'servelab' && r.streams === n);
    const naive = runs.find((r) => r.client === 'fetch' && r.streams === n);
    const a = mine?.client_cpu_us_per_chunk;
    const b = naive?.client_cpu_us_per_chunk;
    if (a && b) {
      rows.push(
        infoRow({
          scenario: S,
          case: `fetch/servelab ${n}`,
          metric: 'CPU/chunk ratio',
          value: b / a,
          unit: '×',
        }),
      );
    }
  }
  const largest = Math.max(...o.streamCounts);
  if (o.clients.includes('servelab') && largest < 2000)
    notes.push(`client: largest stream count was ${largest}; the ≥ 2,000-stream target was not exercised`);
  return { name: 'client', rows, details: { options: o, idle_cpu_percent: idleCpuPercent, runs }, notes };
}
