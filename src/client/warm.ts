/**
 * @module client/warm
 * The client's first-use cost, paid before a measured window instead of inside it. A fresh
 * process runs the request path (body build and serialisation, undici's dispatch, its write of
 * the request and its parse of the response, our handler, the SSE parser, the record's
 * classification) in V8's interpreter until it has run enough times to be compiled; at c = 100
 * the first wave is those first runs, all in one burst, and its TTFT carries them. Measured on a
 * 2-core machine against the bench server (docs/bench.md "first wave", per-request stamps): with
 * only our own code warmed, on a stand-in dispatcher, undici's dispatch took ~60 µs and its write
 * ~55 µs per first-wave request (~12 µs and a few µs once warm), 6 ms from the first request's
 * dispatch to the last's and as much again until the last was written. {@link startWarmServer}
 * is a loopback HTTP server in this process that answers every request at once with a short
 * canned response of the endpoint's shape; the HTTP target sends {@link WARM_REQUESTS} requests
 * through its own code and a fresh undici agent to it. The server under test sees none of them
 * and the records are discarded.
 */
import { type AddressInfo, createServer, type Socket } from 'node:net';

/** Synthetic requests run through the client before a window: three waves of 100 cover V8's tier-up (measured above). */
export const WARM_REQUESTS = 300;

/**
 * Warm-up requests before a window that opens `connections` connections: twice as many, up to
 * {@link WARM_REQUESTS}, in waves of up to 100. The first wave's cold cost is its size times the
 * per-request cost (~0.1 ms cold), so a small window needs little, and each loopback request
 * costs real time (300 took 0.2 s at real-time priority, 2.5–7 s at load average ~28 on 2 cores).
 */
export function warmRequests(connections: number): number {
  return Math.min(WARM_REQUESTS, 2 * Math.max(0, connections));
}

/** Token chunks in each canned stream. */
const WARM_TOKENS = 4;

/** The canned response's body, split into the reads the handler is fed. */
function cannedBody(endpoint: 'chat' | 'completions', stream: boolean): Buffer[] {
  const chat = endpoint === 'chat';
  if (!stream) {
    const choice = chat
      ? {
          index: 0,
          message: { role: 'assistant', content: ' tok'.repeat(WARM_TOKENS) },
          finish_reason: 'length',
        }
      : { index: 0, text: ' tok'.repeat(WARM_TOKENS), finish_reason: 'length' };
    const body = {
      id: 'warm',
      object: chat ? 'chat.completion' : 'text_completion',
      model: 'warm',
      choices: [choice],
      usage: { prompt_tokens: 1, completion_tokens: WARM_TOKENS, total_tokens: 1 + WARM_TOKENS },
    };
    return [Buffer.from(JSON.stringify(body))];
  }
  const object = chat ? 'chat.completion.chunk' : 'text_completion';
  const event = (last: boolean) => {
    const choice = chat
      ? { index: 0, delta: { content: ' tok' }, finish_reason: last ? 'length' : null }
      : { index: 0, text: ' tok', finish_reason: last ? 'length' : null };
    return `data: ${JSON.stringify({ id: 'warm', object, model: 'warm', choices: [choice] })}\n\n`;
  };
  const reads: Buffer[] = [];
  for (let i = 0; i < WARM_TOKENS; i++) reads.push(Buffer.from(event(i === WARM_TOKENS - 1)));
  const usage = { prompt_tokens: 1, completion_tokens: WARM_TOKENS, total_tokens: 1 + WARM_TOKENS };
  reads.push(
    Buffer.from(`data: ${JSON.stringify({ id: 'warm', object, model: 'warm', choices: [], usage })}\n\n`),
  );
  reads.push(Buffer.from('data: [DONE]\n\n'));
  return reads;
}

/** An in-process loopback server that answers every request with {@link cannedBody}. */
export interface WarmServer {
  /** `http://127.0.0.1:PORT`. */
  origin: string;
  close(): Promise<void>;
}

/** The whole HTTP/1.1 response: a 200 with the canned body, chunked (one chunk per event). */
function cannedResponse(endpoint: 'chat' | 'completions', stream: boolean): Buffer {
  const type = stream ? 'text/event-stream' : 'application/json';
  const parts: Buffer[] = [
    Buffer.from(
      `HTTP/1.1 200 OK\r\ncontent-type: ${type}\r\ntransfer-encoding: chunked\r\nconnection: keep-alive\r\n\r\n`,
    ),
  ];
  for (const r of cannedBody(endpoint, stream))
    parts.push(Buffer.from(`${r.length.toString(16)}\r\n`), r, Buffer.from('\r\n'));
  parts.push(Buffer.from('0\r\n\r\n'));
  return Buffer.concat(parts);
}

const HEAD_END = Buffer.from('\r\n\r\n');
const CONTENT_LENGTH = /\r\ncontent-length:\s*(\d+)/i;

/**
 * Start a loopback server in this process that answers every HTTP/1.1 request, once its body has
 * arrived, with a 200 and the canned body of `endpoint` (an SSE stream when `stream`, else one
 * JSON completion), on keep-alive connections. Plain TCP with the response bytes built once: the
 * warm-up's time goes to the client's code, not to an HTTP server's. Null when it cannot listen:
 * the run goes on cold.
 */
export function startWarmServer(
  endpoint: 'chat' | 'completions',
  stream: boolean,
): Promise<WarmServer | null> {
  const response = cannedResponse(endpoint, stream);
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.setNoDelay(true);
    let buf: Buffer = Buffer.alloc(0);
    socket.on('data', (d: Buffer) => {
      buf = buf.length ? Buffer.concat([buf, d]) : d;
      for (;;) {
        const head = buf.indexOf(HEAD_END);
        if (head < 0) return;
        const len = Number(CONTENT_LENGTH.exec(buf.subarray(0, head).toString('latin1'))?.[1] ?? 0);
        const end = head + HEAD_END.length + len;
        if (buf.length < end) return;
        buf = buf.subarray(end);
        socket.write(response);
      }
    });
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  return new Promise((resolve) => {
    server.once('error', () => resolve(null));
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        origin: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise<void>((done) => {
            for (const s of sockets) s.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}
