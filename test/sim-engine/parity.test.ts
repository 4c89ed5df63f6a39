/**
 * `plan` and the real-time server are the same engine on two clocks: for the same workload and
 * seed they must agree on token counts, finish reasons and the server-side prefill/decode times.
 * The server is driven over real loopback HTTP on a {@link VirtualClock} that the test advances
 * to the driver's next timer whenever the event loop is idle, so its engine times do not depend
 * on how busy the machine is.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { VirtualClock } from '../../src/runtime/clock.js';
import { Rng } from '../../src/runtime/rng.js';
import { planRequestFromSpec, simulateDetailed } from '../../src/sim/batch-driver.js';
import { type SimServer, startSimServer } from '../../src/sim/server/index.js';
import { approximateTokenizer } from '../../src/tokenizer/index.js';
import type { RequestSpec } from '../../src/workload/types.js';

function postJson(url: string, body: unknown): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json' }, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'kernel', 'tensor', 'batch', 'cache', 'token', 'model'];

function specs(n: number): RequestSpec[] {
  const rng = new Rng(21);
  return Array.from({ length: n }, (_, index) => ({
    index,
    prompt: Array.from({ length: 40 + rng.int(0, 300) }, () => WORDS[rng.int(0, WORDS.length - 1)]).join(' '),
    input_len: null,
    output_len: 64 + rng.int(0, 300),
  }));
}

/** Resolve `p` while moving the virtual clock to each next timer once I/O has settled. */
async function pump<T>(clock: VirtualClock, p: Promise<T>): Promise<T> {
  let done = false;
  const out = p.finally(() => {
    done = true;
  });
  while (!done) {
    await new Promise((r) => setImmediate(r));
    const next = clock.nextTimerAt();
    if (next !== undefined) clock.advanceTo(next);
  }
  return out;
}

describe('plan agrees with the HTTP simulator', () => {
  let sim: SimServer;
  const clock = new VirtualClock();
  before(async () => {
    sim = await startSimServer(
      { model: 'llama-3.1-8b', gpu: 'h100', exposeTimings: true, seed: 3 },
      { log: () => {}, clock },
    );
  });
  after(() => sim.close());

  it('on lengths, finish reasons and server-side prefill/decode times (sequential requests)', async () => {
    const list = specs(6);
    const planned = list.map((s, i) =>
      planRequestFromSpec(s, approximateTokenizer, sim.config, `p${i}`, {
        endpoint: 'chat',
        serverSeed: 3,
        seed: 11,
      }),
    );
    const plan = simulateDetailed(sim.config, planned, { kind: 'closed', concurrency: 1 });
    for (let i = 0; i < list.length; i++) {
      const res = await pump(
        clock,
        postJson(`${sim.url}/v1/chat/completions`, {
          model: sim.modelId,
          messages: [{ role: 'user', content: list[i].prompt }],
          max_tokens: list[i].output_len,
          seed: 11,
        }),
      );
      const usage = res.usage as { prompt_tokens: number; completion_tokens: number };
      const choice = (res.choices as { finish_reason: string }[])[0];
      const timings = res.timings as { prefill_ms: number; decode_ms: number };
      const rec = plan.records[i];
      assert.equal(usage.prompt_tokens, rec.usage!.prompt_tokens, `prompt tokens of ${i}`);
      assert.equal(usage.completion_tokens, rec.usage!.completion_tokens, `completion tokens of ${i}`);
      assert.equal(choice.finish_reason, rec.finish_reason);
      const near = (a: number, b: number) => Math.abs(a - b) <= 0.05 * Math.max(a, b) + 1e-6;
      assert.ok(
        near(timings.prefill_ms, plan.server[i].prefill_ms),
        `prefill ${timings.prefill_ms} vs ${plan.server[i].prefill_ms}`,
      );
      assert.ok(
        near(timings.decode_ms, plan.server[i].decode_ms),
        `decode ${timings.decode_ms} vs ${plan.server[i].decode_ms}`,
      );
    }
    assert.ok(
      plan.records.some((r) => r.finish_reason === 'stop'),
      'some requests stop on their own',
    );
  });
});
