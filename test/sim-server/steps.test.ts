/**
 * `servelab sim --record-steps` over real loopback HTTP: `GET /servelab/steps` serves every
 * engine step a page at a time (the `since`/`limit` cursor), each prompt's prefill chunks add up
 * to its prompt, the chunks respect the step's token budget, the client's request id names each
 * request, and a simulator that does not record answers 404 (so a client's probe skips it).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import type { EngineStepRecord } from '../../src/record/engine-step.js';
import { http, startSim } from './helpers.js';
import '../helpers/node-warnings.js';

interface Page {
  steps: EngineStepRecord[];
  next: number;
  first: number;
  end: number;
  dropped: number;
  server_clock_ms: number;
  time_scale: number;
}

const BUDGET = 512;

describe('GET /servelab/steps', () => {
  it('pages through the steps of mixed prompts; the chunks add up to each prompt', async (t) => {
    const sim = await startSim(
      { model: 'qwen3-0.6b', recordSteps: true, maxNumBatchedTokens: BUDGET, maxNumSeqs: 64 },
      t,
    );
    const before = (await http(`${sim.url}/servelab/steps?limit=0`, 'GET')).json as Page;
    assert.equal(before.steps.length, 0);
    assert.equal(before.end, 1);
    const words = [30, 400, 1200];
    const sent = await Promise.all(
      words.map((w, i) =>
        http(
          `${sim.url}/v1/completions`,
          'POST',
          {
            model: sim.modelId,
            prompt: Array.from({ length: w }, (_, k) => `w${i}x${k}`).join(' '),
            max_tokens: 8,
          },
          { 'x-request-id': `req-${i}` },
        ),
      ),
    );
    for (const r of sent) assert.equal(r.status, 200, r.text);
    const prompts = new Map(
      sent.map((r, i) => [`req-${i}`, (r.json as { usage: { prompt_tokens: number } }).usage.prompt_tokens]),
    );
    // Three pages of at most 4 steps, then the rest.
    const all: EngineStepRecord[] = [];
    let since = before.end;
    for (let i = 0; i < 100; i++) {
      const p = (await http(`${sim.url}/servelab/steps?since=${since}&limit=4`, 'GET')).json as Page;
      assert.ok(p.steps.length <= 4);
      all.push(...p.steps);
      if (p.next >= p.end) break;
      since = p.next;
    }
    assert.deepEqual(
      all.map((s) => s.step),
      all.map((_, i) => i + 1),
      'every step once, in order',
    );
    for (const s of all) {
      assert.ok(s.dur_ms > 0);
      assert.ok(s.tokens <= BUDGET, `step ${s.step}: ${s.tokens} tokens over the budget`);
      assert.equal(s.tokens, s.decode.length + s.prefill.reduce((a, c) => a + c.tokens, 0));
      assert.ok(s.kv_blocks_used <= s.kv_blocks_total && s.kv_blocks_used > 0);
      assert.equal(s.spec, null);
    }
    for (const [id, n] of prompts) {
      const chunks = all.flatMap((s) => s.prefill.filter((c) => c.id === id));
      assert.equal(
        chunks.reduce((a, c) => a + c.tokens, 0),
        n,
        `${id}: its chunks add up to its ${n} prompt tokens`,
      );
      assert.equal(chunks[chunks.length - 1].done, n);
      // 8 tokens: the first comes with the prefill's last chunk, 7 decodes follow.
      assert.equal(all.filter((s) => s.decode.includes(id)).length, 7, id);
    }
    // A prompt longer than the budget is chunked.
    assert.ok(all.flatMap((s) => s.prefill.filter((c) => c.id === 'req-2')).length >= 2);
    // Steps run back to back while there is work, on the engine timeline.
    for (let i = 1; i < all.length; i++)
      assert.ok(all[i].start_ms >= all[i - 1].start_ms + all[i - 1].dur_ms - 1e-9);
  });

  it('refuses a bad cursor and answers 404 when not recording', async (t) => {
    const on = await startSim({ model: 'qwen3-0.6b', recordSteps: true }, t);
    const bad = await http(`${on.url}/servelab/steps?since=-1`, 'GET');
    assert.equal(bad.status, 400);
    const off = await startSim({ model: 'qwen3-0.6b' }, t);
    const r = await http(`${off.url}/servelab/steps`, 'GET');
    assert.equal(r.status, 404);
    assert.match(r.text, /--record-steps/);
  });

  it('run --url against it keeps the run’s own steps, named by the records’ ids', async (t) => {
    const sim = await startSim({ model: 'qwen3-0.6b', recordSteps: true, timeScale: 20 }, t);
    // Steps before the run (another client's) are not the run's.
    await http(`${sim.url}/v1/completions`, 'POST', { model: sim.modelId, prompt: 'earlier', max_tokens: 4 });
    const dir = mkdtempSync(join(tmpdir(), 'servelab-run-steps-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const io = memoryIo({}, dir);
    const code = await main(
      [
        'run',
        '--url',
        `${sim.url}/v1`,
        '--requests',
        '6',
        '--concurrency',
        '3',
        '--input-len',
        '300',
        '--output-len',
        '8',
        '--no-db',
        '--out',
        'out',
      ],
      io,
    );
    assert.equal(code, 0, io.err());
    const steps = readFileSync(join(dir, 'out', 'steps.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as EngineStepRecord & { t_ms: number });
    const records = readFileSync(join(dir, 'out', 'requests.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; sent_at_ms: number; first_token_at_ms: number });
    const named = new Set(steps.flatMap((s) => [...s.decode, ...s.prefill.map((c) => c.id)]));
    assert.deepEqual(
      [...named].sort(),
      records.map((r) => r.id).sort(),
      'every step names the run’s requests only',
    );
    // On the run's clock, in step order (how far a wall-clock driver lags is not asserted: no timing in tests).
    for (let i = 1; i < steps.length; i++) assert.ok(steps[i].t_ms > steps[i - 1].t_ms);
  });
});
