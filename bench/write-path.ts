/**
 * @module bench/write-path
 * What one token chunk costs the server to write, by write method (docs/sim.md, "Where a step's
 * time goes"): N keep-alive chunked responses on loopback, R rounds of one ~230-byte SSE chunk
 * to each, read and dropped by a child process. Prints the server's CPU per chunk (user+system
 * and system alone, `process.cpuUsage`) and the loop's wall time per chunk, three times per method:
 * - `res.write`: node:http, which corks the socket until the next tick;
 * - `corked`: `socket.cork()`, `res.write`, `socket.uncork()`: the syscall at once;
 * - `direct`: the chunk framed (`<hex>\r\n…\r\n`) and written to the socket (what the simulator does).
 *
 *     node --import tsx bench/write-path.ts [N=1000] [R=200]
 */
import { fork } from 'node:child_process';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';

if (process.argv[2] === 'reader') {
  const port = Number(process.argv[3]);
  const n = Number(process.argv[4]);
  let open = 0;
  for (let i = 0; i < n; i++) {
    const s = connect(port, '127.0.0.1', () => {
      s.write('GET / HTTP/1.1\r\nhost: x\r\n\r\n');
      if (++open === n) process.send?.('ready');
    });
    s.on('data', () => {});
    s.on('error', () => {});
  }
} else {
  const n = Number(process.argv[2] ?? 1000);
  const rounds = Number(process.argv[3] ?? 200);
  const responses: ServerResponse[] = [];
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.flushHeaders();
    responses.push(res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', 4096, r));
  const port = (server.address() as AddressInfo).port;
  const reader = fork(fileURLToPath(import.meta.url), ['reader', String(port), String(n)], {
    execArgv: ['--import', 'tsx'],
  });
  await new Promise((r) => reader.once('message', r));
  while (responses.length < n) await new Promise((r) => setTimeout(r, 10));
  const chunk = (k: number) =>
    `data: {"id":"chatcmpl-934776f9010cc9cfb262d744d0850e79","object":"chat.completion.chunk","created":1764600000,"model":"llama-3.1-8b","choices":[{"index":0,"delta":{"content":" w${k}"},"logprobs":null,"finish_reason":null}],"servelab":{"step":${k},"planned_ms":${performance.now()},"emit_ms":${performance.now()}}}\n\n`;
  const methods: Record<string, (res: ServerResponse, text: string) => void> = {
    'res.write': (res, text) => res.write(text),
    corked: (res, text) => {
      res.socket?.cork();
      res.write(text);
      res.socket?.uncork();
    },
    direct: (res, text) => res.socket?.write(`${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`),
  };
  const out: Record<string, string[]> = {};
  for (let rep = 0; rep < 3; rep++)
    for (const [name, write] of Object.entries(methods)) {
      let loopMs = 0;
      const c0 = process.cpuUsage();
      for (let r = 0; r < rounds; r++) {
        const t0 = performance.now();
        for (let i = 0; i < n; i++) write(responses[i], chunk(r));
        loopMs += performance.now() - t0;
        // Let node:http's next-tick flushes and the reader run between rounds.
        await new Promise((res) => setTimeout(res, 2));
      }
      const c = process.cpuUsage(c0);
      const per = n * rounds;
      out[name] ??= [];
      out[name].push(
        `${((c.user + c.system) / per).toFixed(1)} (sys ${(c.system / per).toFixed(1)}) / ${((loopMs * 1000) / per).toFixed(1)}`,
      );
    }
  console.log(`${n} sockets × ${rounds} rounds; per chunk: CPU µs (of which system) / loop wall µs`);
  for (const [k, v] of Object.entries(out)) console.log(`${k.padEnd(10)} ${v.join('   ')}`);
  reader.kill();
  server.closeAllConnections();
  server.close();
}
