/**
 * A run whose server disappears fails, end to end through `servelab run`: a test server that
 * closes its listener after 30 answers, and the real llama.cpp server killed with SIGKILL
 * mid-run. Each writes one record per planned request, exits 3, and its verdict (and
 * `diagnose`) says the server stopped answering; the closed-loop workers back off between
 * connect errors instead of spending the remaining requests at once.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { llamaServerMissing, startLlamaServer } from '../helpers/llama-server.js';
import { chatChunk, DONE, type Script, sse, startSseServer, usageChunk } from '../helpers/misbehaving.js';
import '../helpers/node-warnings.js';

const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'servelab-gone-'));
  dirs.push(d);
  return d;
}
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface Rec {
  planned_id: string;
  attempt: number;
  outcome: string;
  sent_at_ms: number | null;
  error: string | null;
}

function records(dir: string): Rec[] {
  return readFileSync(join(dir, 'out', 'requests.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

const answer: Script = {
  headers: { 'content-type': 'text/event-stream' },
  steps: [
    sse(chatChunk({ role: 'assistant', content: '' })),
    { delay_ms: 20 },
    sse(chatChunk({ content: 'Hi', finish_reason: 'stop' })),
    sse(usageChunk({ prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 })),
    DONE,
  ],
};

/** Checks shared by both servers: records, exit code, verdict, diagnose, the workers' back-off. */
async function assertFailedRun(dir: string, code: number, text: string, planned: number) {
  assert.equal(code, 3, text);
  const recs = records(dir);
  assert.equal(new Set(recs.map((r) => r.planned_id)).size, planned, 'one record per planned request');
  assert.equal(recs.filter((r) => r.attempt === 1).length, planned);
  assert.match(text, /NOT VALID/);
  assert.match(text, /the server stopped answering at t=\d+\.\d s: \d+ requests got connect errors/);
  // The workers backed off: the connect errors are spread over seconds, not spent at once.
  const refused = recs.filter((r) => r.outcome === 'connect_error').map((r) => r.sent_at_ms as number);
  assert.ok(refused.length >= 3, JSON.stringify(recs.slice(-5)));
  assert.ok(refused.length < planned / 2, `${refused.length} connect errors: the workers did not back off`);
  assert.ok(Math.max(...refused) - Math.min(...refused) > 3000, 'connect errors spread over seconds');
  // What was not sent says why.
  assert.ok(
    recs.some(
      (r) => r.outcome === 'cancelled' && /not sent: the server stopped answering/.test(r.error ?? ''),
    ),
  );
  const diag = memoryIo({}, dir);
  await main(['diagnose', 'out/report.json'], diag);
  assert.match(diag.out() + diag.err(), /server_gone|stopped answering/, diag.out() + diag.err());
}

describe('a run whose server disappears fails', () => {
  it('a test server that closes its listener after 30 answers', async () => {
    let served = 0;
    const server = await startSseServer((r) => {
      if (r.method === 'POST' && ++served === 30) setTimeout(() => void server.close(), 0);
      return answer;
    });
    const dir = tmp();
    const io = memoryIo({}, dir);
    const code = await main(
      [
        'run',
        '--url',
        server.baseUrl,
        '--model',
        'm',
        '--prompt',
        'hi',
        '--requests',
        '200',
        '--concurrency',
        '4',
        '--out',
        'out',
        '--no-db',
        '--no-scrape',
      ],
      io,
    );
    await assertFailedRun(dir, code, io.out() + io.err(), 200);
  });

  const missing = llamaServerMissing();
  it('llama.cpp killed mid-run', { skip: missing ?? false }, async () => {
    const server = await startLlamaServer(['--metrics']);
    try {
      const dir = tmp();
      const io = memoryIo({}, dir);
      const run = main(
        [
          'run',
          '--url',
          `${server.root}/v1`,
          '--model',
          'qwen2-vocab',
          '--input-len',
          '32',
          '--output-len',
          '8',
          '--requests',
          '200',
          '--concurrency',
          '4',
          '--out',
          'out',
          '--no-db',
        ],
        io,
      );
      // Kill it once some requests were answered: the server's own count of predicted tokens
      // (llama.cpp's `llamacpp:tokens_predicted_total`, updated as each request ends), not a
      // fixed delay that the client's set-up can outlast on a loaded machine.
      const answered = async (): Promise<boolean> => {
        const text = await fetch(`${server.root}/metrics`).then((r) => r.text());
        return Number(/llamacpp:tokens_predicted_total\s+(\d+)/.exec(text)?.[1] ?? 0) >= 5 * 8;
      };
      for (let i = 0; i < 600 && !(await answered()); i++) await new Promise((r) => setTimeout(r, 100));
      await server.kill('SIGKILL');
      const code = await run;
      await assertFailedRun(dir, code, io.out() + io.err(), 200);
    } finally {
      await server.close();
    }
  });
});
