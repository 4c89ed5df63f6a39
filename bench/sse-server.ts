/**
 * @module bench/sse-server
 * A fast loopback SSE server for client benchmarks, run as a child process so that it does
 * not share the client's event loop. Each POST streams `max_tokens` OpenAI chat chunks, one
 * every `x-bench-interval-ms`. Streams are laid on a shared grid so their phases are spread
 * evenly however the connections arrive: stream chunk k is due at
 * `x-bench-epoch-ms + phase_ms + k × interval` (CLOCK_MONOTONIC ms), where `phase_ms` comes from
 * the prompt text (`phase_ms=12.5`), the only per-request field a stock client lets us set. A
 * stream that arrives after its first slot starts at its next slot. Without an epoch a stream
 * starts at arrival + phase.
 *
 * The server stamps every chunk write with CLOCK_MONOTONIC (`process.hrtime`, shared by all
 * processes on the machine); the parent fetches the stamps, and the server's own lateness
 * against the grid, over IPC to measure the client's received-time error.
 *
 * Before it says it is ready, the server warms its own request path with {@link SELF_WARM}
 * requests to itself (nothing recorded), so a benchmark's first wave does not meet a server
 * running its handler for the first time (bench/first-wave: the first wave is the server's
 * first POSTs too, and a cold server is not a constant-latency one).
 *
 * IPC: sends `{ port }` when listening and warm; answers `{cmd:'stamps'}` with
 * `{ stamps: {id: number[]}, late_ms: number[] }` (and clears them), `{cmd:'cpu'}` with
 * `{ cpu: process.cpuUsage() }`; exits on `{cmd:'exit'}`.
 */
import { createServer, request } from 'node:http';

/** Write time (CLOCK_MONOTONIC ms) of each token chunk, per `x-request-id`. */
const stamps = new Map<string, number[]>();
/** Server-side lateness of each write against its grid slot (ms): the server's own share of any error. */
let lateMs: number[] = [];
const nowMs = () => Number(process.hrtime.bigint()) / 1e6;
const PHASE_RE = /phase_ms=([\d.]+)/;
/** A chunk interval in the prompt (`interval_ms=5`) wins over the header: a stock CLI sends no custom header. */
const INTERVAL_RE = /interval_ms=([\d.]+)/;

/** Chunk index and interval/epoch of a request, from its headers and body. */
function parseRequest(headers: Record<string, string | string[] | undefined>, body: string) {
  let interval = Number(headers['x-bench-interval-ms'] ?? 50);
  const epochHeader = headers['x-bench-epoch-ms'];
  const epoch = epochHeader === undefined ? null : Number(epochHeader);
  let n = 16;
  let phase = 0;
  try {
    const j = JSON.parse(body) as { max_tokens?: number; messages?: { content?: string }[]; prompt?: string };
    n = j.max_tokens ?? 16;
    const text = j.messages?.[0]?.content ?? j.prompt ?? '';
    const m = PHASE_RE.exec(text);
    if (m) phase = Number(m[1]);
    const iv = INTERVAL_RE.exec(text);
    if (iv) interval = Number(iv[1]);
  } catch {
    // not JSON: defaults
  }
  return { interval, epoch, n, phase };
}

const server = createServer((req, res) => {
  let body = '';
  req.on('data', (d) => {
    body += d;
  });
  req.on('end', () => {
    const id = String(req.headers['x-request-id'] ?? '');
    const { interval, epoch, n, phase } = parseRequest(req.headers, body);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const times: number[] = [];
    stamps.set(id, times);
    const head = `data: {"id":"b","object":"chat.completion.chunk","created":0,"model":"bench","choices":[{"index":0,"delta":{"content":" tok"},"finish_reason":`;
    const arrival = nowMs();
    // First slot at or after arrival on this stream's phase of the shared grid.
    let start = arrival + phase;
    if (epoch !== null) {
      const base = epoch + phase;
      start = base + Math.max(0, Math.ceil((arrival - base) / interval)) * interval;
    }
    let i = 0;
    const tick = () => {
      if (res.destroyed) return;
      const last = i === n - 1;
      const t = nowMs();
      times.push(t);
      lateMs.push(t - (start + i * interval));
      res.write(`${head}${last ? '"stop"' : 'null'}}]}\n\n`);
      i++;
      if (last) {
        res.write(
          `data: {"id":"b","object":"chat.completion.chunk","created":0,"model":"bench","choices":[],"usage":{"prompt_tokens":8,"completion_tokens":${n},"total_tokens":${n + 8}}}\n\ndata: [DONE]\n\n`,
        );
        res.end();
        return;
      }
      setTimeout(tick, Math.max(0, start + i * interval - nowMs()));
    };
    setTimeout(tick, Math.max(0, start - nowMs()));
  });
});
server.keepAliveTimeout = 60_000;
server.maxConnections = 100_000;
/** Requests the server sends itself before it is ready: three waves of 100, as a benchmark's first waves. */
const SELF_WARM = 300;

/** One streamed request to ourselves, read to its end. */
function selfRequest(port: number, i: number): Promise<void> {
  const body = JSON.stringify({
    max_tokens: 4,
    messages: [{ role: 'user', content: 'phase_ms=0 interval_ms=0' }],
  });
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/v1/chat/completions',
        headers: { 'content-type': 'application/json', 'x-request-id': `self-warm-${i}` },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve());
        res.on('error', () => resolve());
      },
    );
    req.on('error', () => resolve());
    req.end(body);
  });
}

server.listen(0, '127.0.0.1', async () => {
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  for (let i = 0; i < SELF_WARM; i += 100)
    await Promise.all(Array.from({ length: 100 }, (_, k) => selfRequest(port, i + k)));
  stamps.clear();
  lateMs = [];
  process.send?.({ port });
});
process.on('message', (m: { cmd: string }) => {
  if (m.cmd === 'stamps') {
    process.send?.({ stamps: Object.fromEntries(stamps), late_ms: lateMs });
    stamps.clear();
    lateMs = [];
  } else if (m.cmd === 'cpu') {
    process.send?.({ cpu: process.cpuUsage() });
  } else if (m.cmd === 'exit') {
    server.close();
    process.exit(0);
  }
});
// The parent died without saying goodbye: do not linger.
process.on('disconnect', () => process.exit(0));
