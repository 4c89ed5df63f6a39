/**
 * After a run, nothing of the run keeps the process alive: no timer, no socket, no sleep. A
 * child process runs `runLoad` with the real HTTP client on the real clock against streams that
 * stall after their first token, ends the run (by interruption, or by the duration drain), closes
 * the target and then simply returns: it must exit by itself, with every planned request recorded.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

let server: Server;
let baseUrl: string;
const open = new Set<ServerResponse>();

before(async () => {
  // one content chunk, then the stream stalls forever
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      open.add(res);
      res.on('close', () => open.delete(res));
      const obj = { object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'a' } }] };
      res.write(`data: ${JSON.stringify(obj)}\n\n`);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

after(async () => {
  for (const res of open) res.destroy();
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

const root = fileURLToPath(new URL('../..', import.meta.url));
const src = (p: string) => JSON.stringify(new URL(`../../src/${p}`, import.meta.url).href);

/** Runs `body` in a child (ESM, tsx) and resolves with its exit and stdout; kills it if it hangs. */
function runChild(
  body: string,
): Promise<{ code: number | null; signal: string | null; out: string; err: string }> {
  const code = `
    import { createHttpTarget } from ${src('client/http.ts')};
    import { runLoad } from ${src('runner/loops.ts')};
    import { RealClock } from ${src('runtime/clock.ts')};
    const clock = new RealClock();
    const target = createHttpTarget({ baseUrl: ${JSON.stringify(baseUrl)}, endpoint: 'chat', model: 'm', stream: true, clock });
    const specs = [{ index: 0, prompt: 'x', input_len: 1, output_len: 4 }];
    ${body}
    await target.close();
    console.log(JSON.stringify({ reason: res.reason, records: res.records.map((r) => [r.outcome, r.sent_at_ms !== null, r.chunk_times_ms.length]) }));
  `;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
      cwd: root,
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    // a hang detector, not a timing assertion: the child needs a second or two
    const kill = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('exit', (code, signal) => {
      clearTimeout(kill);
      resolve({ code, signal, out, err });
    });
  });
}

test('interrupted mid-stream: every request recorded, then the process exits by itself', async () => {
  const r = await runChild(`
    const ac = new AbortController();
    let chunks = 0;
    const res = await runLoad(
      { load: { kind: 'closed', concurrency: 3, requests: 6 }, specs },
      { target, clock, signal: ac.signal, observers: [{ onChunk: () => { if (++chunks === 3) ac.abort(); } }] },
    );
  `);
  assert.equal(r.signal, null, `the process hung and was killed; stderr: ${r.err}`);
  assert.equal(r.code, 0, r.err);
  const res = JSON.parse(r.out.trim().split('\n').pop() as string);
  assert.equal(res.reason, 'interrupted');
  assert.deepEqual(res.records, [
    ['cancelled', true, 1],
    ['cancelled', true, 1],
    ['cancelled', true, 1],
    ['cancelled', false, 0],
    ['cancelled', false, 0],
    ['cancelled', false, 0],
  ]);
});

test('--duration ends with the drain timeout: stalled streams cancelled, then the process exits by itself', async () => {
  const r = await runChild(`
    const res = await runLoad(
      { load: { kind: 'closed', concurrency: 2, durationMs: 50 }, specs, drainTimeoutMs: 50 },
      { target, clock },
    );
  `);
  assert.equal(r.signal, null, `the process hung and was killed; stderr: ${r.err}`);
  assert.equal(r.code, 0, r.err);
  const res = JSON.parse(r.out.trim().split('\n').pop() as string);
  // The drain ran out and cancelled the stalled streams: the end reason says so (not a plain `duration`).
  assert.equal(res.reason, 'drain_timeout');
  assert.equal(res.records.length, 2);
  assert.ok(res.records.every(([outcome, sent]: [string, boolean]) => outcome === 'cancelled' && sent));
});
