/**
 * @module test/record/server-times
 * Reading a response's `timings` into the record's server-side times, in wall ms: llama.cpp's
 * shape (ggml-org/llama.cpp tools/server: `prompt_ms`, `predicted_ms`, no queue) and the
 * simulator's (engine ms with `time_scale`).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { serverTimes, serverTimesOf, serverTimesOfSpan } from '../../src/record/server-times.js';
import { emptyRecord, type RequestServerTimes } from '../../src/record/types.js';

describe('serverTimesOf', () => {
  const cases: [string, Record<string, unknown> | null, RequestServerTimes | null][] = [
    [
      // as llama-server answered a 23-token prompt here (de3ff81)
      'llama.cpp: prefill = prompt_ms, decode = predicted_ms, no queue',
      {
        cache_n: 0,
        prompt_n: 23,
        prompt_ms: 5.74,
        prompt_per_token_ms: 0.2496,
        prompt_per_second: 4006.97,
        predicted_n: 5,
        predicted_ms: 12.286,
        predicted_per_token_ms: 3.0715,
        predicted_per_second: 325.57,
      },
      { queue_ms: null, prefill_ms: 5.74, decode_ms: 12.286, source: 'llamacpp.timings' },
    ],
    [
      'the simulator at time scale 1: engine ms are wall ms',
      { queue_ms: 4, prefill_ms: 30, decode_ms: 200, prompt_ms: 30, predicted_ms: 200, time_scale: 1 },
      { queue_ms: 4, prefill_ms: 30, decode_ms: 200, source: 'sim' },
    ],
    [
      'the simulator at time scale 10: one wall ms is 10 engine ms',
      { queue_ms: 40, prefill_ms: 30, decode_ms: 200, time_scale: 10 },
      { queue_ms: 4, prefill_ms: 3, decode_ms: 20, source: 'sim' },
    ],
    [
      'the simulator, aborted before its first token: what it did not time stays null',
      { queue_ms: 12, prefill_ms: null, decode_ms: null, time_scale: 2 },
      { queue_ms: 6, prefill_ms: null, decode_ms: null, source: 'sim' },
    ],
    ['no timings', null, null],
    ['a timings object with no time it knows', { cache_n: 3, tokens_cached: 7 }, null],
    ['a non-number prompt_ms', { prompt_ms: '5', predicted_ms: null }, null],
  ];
  for (const [name, timings, want] of cases)
    it(name, () => {
      assert.deepEqual(serverTimesOf(timings), want);
    });
});

describe('serverTimes', () => {
  it("takes the record's own field, and reads timings for a record written before it existed", () => {
    const r = emptyRecord({ id: 'a', planned_id: 'a', attempt: 1, phase: 'measure', index: 0 });
    r.timings = { prompt_ms: 8, predicted_ms: 20 };
    assert.equal(serverTimes(r), null, 'server: null says the client read none');
    delete r.server;
    assert.deepEqual(serverTimes(r), {
      queue_ms: null,
      prefill_ms: 8,
      decode_ms: 20,
      source: 'llamacpp.timings',
    });
  });
});

describe('serverTimesOfSpan', () => {
  it("reads vLLM's span attributes (vllm/tracing.py SpanAttributes), seconds to ms", () => {
    assert.deepEqual(
      serverTimesOfSpan({
        'gen_ai.latency.time_in_queue': 0.002,
        'gen_ai.latency.time_in_model_prefill': 0.05,
        'gen_ai.latency.time_in_model_decode': '0.25',
        'gen_ai.latency.time_to_first_token': 0.06,
      }),
      { queue_ms: 2, prefill_ms: 50, decode_ms: 250, source: 'otlp' },
    );
  });
  it('says nothing about a span without them (another span of the trace)', () => {
    assert.equal(serverTimesOfSpan({ 'http.method': 'POST', 'gen_ai.latency.e2e': 1 }), null);
    assert.deepEqual(serverTimesOfSpan({ 'gen_ai.latency.time_in_model_prefill': 0.01 }), {
      queue_ms: null,
      prefill_ms: 10,
      decode_ms: null,
      source: 'otlp',
    });
  });
});
