/**
 * @module bench/first-wave-client
 * One closed-loop run of bench/first-wave in a process of its own, so that its first wave meets
 * a client as cold as a fresh `servelab run` does (a second run in the same process would find
 * the request path compiled already). Args: PORT PRECONNECT(1|0) CONCURRENCY REQUESTS TTFT_MS.
 * Sends `{ result }` over IPC: the first wave's and the rest's TTFT percentiles, and their time
 * from `sent_at_ms` to undici's write of the request (its `undici:client:sendHeaders`
 * diagnostics channel), how many connections were opened inside the measured window
 * (`undici:client:connected`), and what the client did before it (`client_health.prepared`).
 */
import { subscribe } from 'node:diagnostics_channel';
import { requestMetrics } from '../src/analysis/request.js';
import { createHttpTarget } from '../src/client/http.js';
import type { Target } from '../src/client/types.js';
import { runLoad } from '../src/runner/loops.js';
import { RealClock } from '../src/runtime/clock.js';
import { pcts } from './lib.js';

const [port, pre, c, n, ttft] = process.argv.slice(2).map(Number);
// The parent stops us with `{cmd:'exit'}` (bench/lib startChild), or dies.
process.on('message', (m: { cmd?: string }) => {
  if (m.cmd === 'exit') process.exit(0);
});
process.on('disconnect', () => process.exit(0));
const preconnect = pre === 1;
const clock = new RealClock();
/** Connect times (run clock, ms) of every connection the client opened. */
const connects: number[] = [];
subscribe('undici:client:connected', () => connects.push(clock.now()));
/** When undici wrote each request's headers to its socket (run clock, ms), by `x-request-id`. */
const written = new Map<string, number>();
subscribe('undici:client:sendHeaders', (m) => {
  const id = /\r\nx-request-id: ([^\r]+)/i.exec((m as { headers: string }).headers)?.[1];
  if (id !== undefined) written.set(id, clock.now());
});

const http = createHttpTarget({
  baseUrl: `http://127.0.0.1:${port}/v1`,
  endpoint: 'chat',
  model: 'bench',
  stream: true,
  clock,
});
// Without preconnect: the same target, hiding the method from the runner.
const target: Target = preconnect ? http : { send: (a) => http.send(a), close: () => http.close() };
try {
  const res = await runLoad(
    {
      load: { kind: 'closed', concurrency: c, requests: n },
      specs: [{ index: 0, prompt: `phase_ms=${ttft} interval_ms=5`, input_len: null, output_len: 4 }],
    },
    { target, clock },
  );
  const sent = res.records
    .filter((r) => r.phase === 'measure' && r.sent_at_ms !== null)
    .sort((a, b) => (a.sent_at_ms as number) - (b.sent_at_ms as number));
  const ttfts = (rs: typeof sent) =>
    rs.map((r) => requestMetrics(r).ttft_ms).filter((v): v is number => v !== undefined);
  const first = pcts(ttfts(sent.slice(0, c)));
  const rest = pcts(ttfts(sent.slice(c)));
  // sent_at_ms -> on the wire: the client's own share of each TTFT before the server sees it
  const toWire = (rs: typeof sent) =>
    pcts(
      rs.flatMap((r) =>
        written.has(r.id) ? [(written.get(r.id) as number) - (r.sent_at_ms as number)] : [],
      ),
    );
  process.send?.({
    result: {
      first,
      rest,
      ratio: first.p50 !== null && rest.p50 ? first.p50 / rest.p50 : null,
      first_to_wire: toWire(sent.slice(0, c)),
      rest_to_wire: toWire(sent.slice(c)),
      records: res.records.length,
      ok: res.records.filter((r) => r.outcome === 'ok').length,
      connections_in_window: connects.filter((t) => t >= res.window.start_ms).length,
      prepared: res.client_health.prepared ?? null,
    },
  });
} finally {
  await http.close();
}
