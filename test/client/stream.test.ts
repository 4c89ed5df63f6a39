/**
 * The SSE accumulator without a socket: split reads (byte by byte, and at random points with
 * fast-check) give the same record, and the outcome precedence table.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { classifyOutcome, type OutcomeFlags, ResponseAccumulator } from '../../src/client/stream.js';
import { emptyRecord, type Outcome } from '../../src/record/types.js';
import { chatChunk, DONE, sse, usageChunk } from '../helpers/misbehaving.js';

function fresh(): ResponseAccumulator {
  return new ResponseAccumulator(
    emptyRecord({ id: 'a', planned_id: 'a', attempt: 1, phase: 'measure', index: 0 }),
  );
}

const BODY = Buffer.from(
  ': hello\r\n\r\n' +
    sse(chatChunk({ role: 'assistant', content: '' }), '\r\n') +
    sse(chatChunk({ reasoning_content: 'ü思' })) +
    'data: {"choices":[{"index":0,"delta":{"content":"€😀"},\ndata: "finish_reason":null}]}\n\n' +
    sse(chatChunk({ content: '!', finish_reason: 'stop' })) +
    sse(usageChunk({ prompt_tokens: 1, completion_tokens: 3, total_tokens: 4 })) +
    DONE,
);

/** Feed `parts` as successive reads at times 1, 2, 3…; returns the finished record. */
function feedParts(parts: Buffer[]) {
  const acc = fresh();
  for (let i = 0; i < parts.length; i++) acc.feedSse(parts[i], i + 1);
  acc.endSse(parts.length + 1);
  return acc.finish({ cancelled: false, connectError: false, httpError: false, timedOut: false });
}

describe('ResponseAccumulator', () => {
  it('parses a whole body in one read', () => {
    const r = feedParts([BODY]);
    assert.equal(r.outcome, 'ok');
    assert.deepEqual(r.chunk_kinds, ['r', 'c', 'c']);
    assert.deepEqual(r.chunk_times_ms, [1, 1, 1]);
    assert.equal(r.done, true);
    assert.equal(r.usage?.completion_tokens, 3);
  });

  it('byte-by-byte reads give the same result, with each event timed at the read that completed it', () => {
    const parts = [...BODY].map((b) => Buffer.from([b]));
    const r = feedParts(parts);
    assert.equal(r.outcome, 'ok');
    assert.equal(r.error, null);
    assert.deepEqual(r.chunk_kinds, ['r', 'c', 'c']);
    // the reasoning event completes at the read holding its blank line
    const endOfReasoning = BODY.indexOf('\n\n', BODY.indexOf('ü思')) + 2;
    assert.equal(r.first_reasoning_at_ms, endOfReasoning);
  });

  it('any split keeps the record identical apart from times (property)', () => {
    const whole = feedParts([BODY]);
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: BODY.length - 1 }), { maxLength: 30 }), (cuts) => {
        const sorted = [...cuts].sort((a, b) => a - b);
        const parts: Buffer[] = [];
        let prev = 0;
        for (const c of [...sorted, BODY.length]) {
          parts.push(BODY.subarray(prev, c));
          prev = c;
        }
        const r = feedParts(parts);
        assert.equal(r.outcome, whole.outcome);
        assert.deepEqual(r.chunk_kinds, whole.chunk_kinds);
        assert.deepEqual(r.usage, whole.usage);
        assert.equal(r.done, true);
        assert.equal(r.error, null);
      }),
      { numRuns: 200 },
    );
  });

  it('text split anywhere, characters of every width, decodes as one streaming decoder does (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: 'binary', minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 8 }),
        fc.uniqueArray(fc.integer({ min: 1, max: 4000 }), { maxLength: 40 }),
        (texts, cuts) => {
          const body = Buffer.from(
            `\uFEFF${texts.map((t) => sse(chatChunk({ content: t }))).join('')}${DONE}`,
          );
          const parts: Buffer[] = [];
          let prev = 0;
          for (const c of [...cuts.filter((c) => c < body.length)].sort((a, b) => a - b)) {
            parts.push(body.subarray(prev, c));
            prev = c;
          }
          parts.push(body.subarray(prev));
          const acc = fresh();
          acc.answer = { parts: [] };
          for (const p of parts) acc.feedSse(p, 1);
          assert.deepEqual(acc.answer.parts, texts);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a final event without its blank line is still read at end of stream', () => {
    const acc = fresh();
    acc.feedSse(
      Buffer.from(
        sse(chatChunk({ content: 'a' })) + 'data: ' + JSON.stringify(chatChunk({ finish_reason: 'stop' })),
      ),
      1,
    );
    acc.endSse(2);
    const r = acc.finish({ cancelled: false, connectError: false, httpError: false, timedOut: false });
    assert.equal(r.finish_reason, 'stop');
    assert.equal(r.outcome, 'ok');
    assert.equal(r.done, false);
  });

  it('ignores everything after [DONE]', () => {
    const acc = fresh();
    acc.feedSse(
      Buffer.from(sse(chatChunk({ content: 'a', finish_reason: 'stop' })) + DONE + 'data: {bad\n\n'),
      1,
    );
    const r = acc.finish({ cancelled: false, connectError: false, httpError: false, timedOut: false });
    assert.equal(r.outcome, 'ok');
    assert.equal(r.error, null);
  });
});

describe('classifyOutcome precedence', () => {
  const base: OutcomeFlags = {
    cancelled: false,
    connectError: false,
    httpError: false,
    timedOut: false,
    streamError: false,
    finishReason: 'stop',
    hasContent: true,
  };
  const table: [Partial<OutcomeFlags>, Outcome][] = [
    [{}, 'ok'],
    [{ finishReason: 'tool_calls' }, 'ok'],
    [{ finishReason: 'content_filter' }, 'ok'],
    [{ hasContent: false }, 'no_content'],
    [{ finishReason: 'length', hasContent: false }, 'length'],
    // A length stop is a truncation only below the expected length (or with none).
    [{ finishReason: 'length', expectedLen: 8, completionTokens: 8 }, 'ok'],
    [{ finishReason: 'length', expectedLen: 8, completionTokens: 8, hasContent: false }, 'ok'],
    [{ finishReason: 'length', expectedLen: 8, completionTokens: 5 }, 'length'],
    [{ finishReason: 'length', expectedLen: 8, completionTokens: null }, 'length'],
    [{ finishReason: 'length', expectedLen: null, completionTokens: 8 }, 'length'],
    [{ finishReason: 'stop', expectedLen: 8, completionTokens: 3 }, 'ok'],
    [{ finishReason: 'length', expectedLen: 8, completionTokens: 8, streamError: true }, 'stream_error'],
    [{ finishReason: null }, 'incomplete'],
    [{ finishReason: null, hasContent: false }, 'incomplete'],
    [{ finishReason: 'error' }, 'stream_error'],
    [{ finishReason: 'abort' }, 'stream_error'],
    [{ streamError: true, finishReason: null }, 'stream_error'],
    [{ streamError: true, timedOut: true }, 'timeout'],
    [{ httpError: true, streamError: true }, 'http_error'],
    [{ connectError: true, finishReason: null }, 'connect_error'],
    [{ cancelled: true, timedOut: true, streamError: true }, 'cancelled'],
  ];
  for (const [flags, want] of table) {
    it(`${JSON.stringify(flags)} -> ${want}`, () => {
      assert.equal(classifyOutcome({ ...base, ...flags }), want);
    });
  }
});

describe('end of stream mid-event', () => {
  it('a half JSON event cut by EOF is incomplete, not a stream error', () => {
    const acc = fresh();
    acc.feedSse(Buffer.from(sse(chatChunk({ content: 'a' })) + 'data: {"choices":[{"ind'), 1);
    acc.endSse(2);
    const r = acc.finish({ cancelled: false, connectError: false, httpError: false, timedOut: false });
    assert.equal(r.outcome, 'incomplete');
    assert.equal(r.error, null);
  });
});
