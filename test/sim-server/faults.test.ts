/**
 * Fault injection (`--fault-rate`, `--faults`): each fault does what it says on the wire, the
 * draw is seeded, and a faulted request frees its engine state.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { UsageError } from '../../src/core/errors.js';
import { parseFaults } from '../../src/sim/config/faults.js';
import { drawFault } from '../../src/sim/server/faults.js';
import { startSimServer } from '../../src/sim/server/index.js';
import { VOCABULARY } from '../../src/sim/server/text.js';
import { post, startSim, stream, streamText } from './helpers.js';

const body = {
  messages: [{ role: 'user', content: 'Tell me a story.' }],
  max_tokens: 24,
  ignore_eos: true,
  seed: 3,
  stream: true,
  stream_options: { include_usage: true },
};

/** A server whose every request gets `fault`. */
async function faulty(fault: string, t: { after(fn: () => unknown): void }, extra = {}) {
  const s = await startSim({ faultRate: 1, faults: fault, seed: 11, timeScale: 50, ...extra }, t);
  return { s, url: `${s.url}/v1/chat/completions` };
}

describe('sim server faults', () => {
  test('garble corrupts the text but keeps the token count', async (t) => {
    const clean = await startSim({ seed: 11, timeScale: 50 }, t);
    const { url } = await faulty('garble', t);
    const a = await stream(`${clean.url}/v1/chat/completions`, body);
    const b = await stream(url, body);
    const textA = streamText(a.chunks);
    const textB = streamText(b.chunks);
    assert.notEqual(textB, textA);
    assert.equal(textB.length, textA.length, 'same pieces, same lengths');
    assert.equal(b.chunks.at(-1).usage.completion_tokens, 24);
    const words = textB.split(' ').slice(1);
    assert.equal(words.length, 24);
    const vocab = new Set(VOCABULARY.map((w) => w.trim()));
    assert.ok(words.filter((w) => !vocab.has(w)).length >= 12, 'at least half of the words are not words');
    assert.equal(b.data.at(-1), '[DONE]');
  });

  test('http500 and http429 answer at once in the OpenAI error shape', async (t) => {
    for (const [fault, status, type] of [
      ['http500', 500, 'InternalServerError'],
      ['http429', 429, 'RateLimitError'],
    ] as const) {
      const { url } = await faulty(fault, t);
      const r = await post(url, { ...body, stream: false, stream_options: undefined });
      assert.equal(r.status, status);
      assert.equal((r.json as { error: { type: string } }).error.type, type);
    }
  });

  test('inband_error sends a data: {"error"} event and no finish_reason', async (t) => {
    const { s, url } = await faulty('inband_error', t);
    const r = await stream(url, body);
    const err = r.chunks.find((c) => c.error);
    assert.ok(err, 'an error event');
    assert.equal(err.error.code, 500);
    assert.equal(r.data.at(-1), '[DONE]');
    assert.ok(r.chunks.every((c) => !c.choices?.[0]?.finish_reason));
    assert.equal(s.engine.stats().running + s.engine.stats().waiting, 0, 'the engine let it go');
  });

  test('truncate ends the stream early: no finish_reason, no usage, no [DONE]', async (t) => {
    const { url } = await faulty('truncate', t);
    const r = await stream(url, body);
    assert.equal(r.status, 200);
    assert.ok(!r.data.includes('[DONE]'));
    assert.ok(r.chunks.every((c) => !c.choices?.[0]?.finish_reason && !c.usage));
    assert.ok(streamText(r.chunks).split(' ').length - 1 < 24);
  });

  test('disconnect resets the connection mid-stream and frees the KV cache', async (t) => {
    const { s, url } = await faulty('disconnect', t);
    const r = await stream(url, body);
    assert.ok(!r.data.includes('[DONE]'));
    assert.ok(r.error || !r.ended, 'the client sees the connection end abruptly');
    assert.equal(s.engine.stats().kvUsage, 0);
    assert.ok(s.logs.some((l) => l.includes('outcome=fault_disconnect')));
  });

  test('stall:MS holds the stream back; the emit stamps show the pause on the server clock', async (t) => {
    // 4000 engine ms at time scale 50 = an 80 ms pause on the wall.
    const { url } = await faulty('stall:4000', t, { exposeTimings: true });
    const r = await stream(url, body);
    assert.equal(r.data.at(-1), '[DONE]');
    assert.equal(streamText(r.chunks).split(' ').length - 1, 24);
    const lateMs = r.chunks.filter((c) => c.servelab).map((c) => c.servelab.emit_ms - c.servelab.planned_ms);
    assert.ok(Math.max(...lateMs) >= 80 - 0.5, `max lateness ${Math.max(...lateMs)} ms`);
  });

  test('faults are drawn per request from the seed; bad fault lists are usage errors', async () => {
    const faults = parseFaults('http500,stall:250,garble');
    assert.deepEqual(faults[1], { kind: 'stall', stallMs: 250 });
    const draws = (seed: number) =>
      Array.from({ length: 200 }, (_, i) => drawFault(seed, i, 0.3, faults, 50)?.kind ?? '-').join(',');
    assert.equal(draws(1), draws(1));
    assert.notEqual(draws(1), draws(2));
    const hit = draws(1)
      .split(',')
      .filter((k) => k !== '-').length;
    assert.ok(hit > 30 && hit < 90, `${hit} of 200 at rate 0.3`);
    assert.throws(
      () => parseFaults('http500,explode,stall'),
      (e: unknown) => {
        assert.ok(e instanceof UsageError);
        assert.equal(e.problems.length, 2);
        return true;
      },
    );
    await assert.rejects(
      startSimServer({ model: 'llama-3.1-8b', gpu: 'h100', faultRate: 2, timeScale: 0 }),
      (e: unknown) => e instanceof UsageError && e.problems.length >= 3,
    );
  });
});
