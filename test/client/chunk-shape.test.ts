/**
 * The client's same-shape shortcut (`client/stream` ChunkShape): a stream's token chunks that
 * differ from a parsed one only in their text are read without JSON.parse. Whatever the stream,
 * the record and the answer text must be exactly those of parsing every event, which the
 * accumulator does when it keeps the events (`events` set, as `check` asks).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ResponseAccumulator } from '../../src/client/stream.js';
import { emptyRecord } from '../../src/record/types.js';
import { chatChunk, DONE, sse, usageChunk } from '../helpers/misbehaving.js';

function completionChunk(text: string, finish: string | null = null, id = 'cmpl-1'): Record<string, unknown> {
  return {
    id,
    object: 'text_completion',
    created: 1,
    model: 'm',
    choices: [{ index: 0, text, logprobs: null, finish_reason: finish }],
  };
}

const text = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.string({ unit: 'binary', maxLength: 4 }),
  fc.constantFrom('', '"', '\\', 'a\nb', '\u0001', 'servelab:shape-probe', '"text":"x"', 'é€😀'),
);

/** One event of a stream: the kinds of chunk servers send, in any order. */
const event = fc.oneof(
  { weight: 6, arbitrary: text.map((t) => sse(completionChunk(t))) },
  { weight: 4, arbitrary: text.map((t) => sse(chatChunk({ content: t }))) },
  { weight: 2, arbitrary: text.map((t) => sse(chatChunk({ reasoning_content: t }))) },
  text.map((t) => sse(chatChunk({ role: 'assistant', content: t }))),
  text.map((t) => sse(completionChunk(t, 'length'))),
  text.map((t) => sse(completionChunk(t, null, 'cmpl-2'))),
  text.map((t) => sse({ ...completionChunk(t), timings: { prompt_ms: 1 } })),
  text.map((t) =>
    sse({
      choices: [
        { index: 0, text: t },
        { index: 1, text: t },
      ],
    }),
  ),
  fc.constant(sse(usageChunk({ prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 }))),
  fc.constant(sse('{"choices":[{"index":0,"text":"ab')),
  fc.constant(': keep-alive\n\n'),
);

/** Feed `body` split at `cuts`; `parseAll` keeps the events, which reads every one with JSON.parse. */
function read(body: Buffer, cuts: number[], parseAll: boolean) {
  const acc = new ResponseAccumulator(
    emptyRecord({ id: 'a', planned_id: 'a', attempt: 1, phase: 'measure', index: 0 }),
  );
  if (parseAll) acc.events = [];
  acc.answer = { parts: [] };
  let prev = 0;
  let t = 0;
  for (const c of [...cuts.filter((c) => c < body.length)].sort((a, b) => a - b)) {
    acc.feedSse(body.subarray(prev, c), ++t);
    prev = c;
  }
  acc.feedSse(body.subarray(prev), ++t);
  acc.endSse(++t);
  const rec = acc.finish({ cancelled: false, connectError: false, httpError: false, timedOut: false });
  return { rec, info: acc.info, answer: acc.answer.parts };
}

describe('same-shape chunks read without JSON.parse', () => {
  it('give the record of parsing every event (property)', () => {
    fc.assert(
      fc.property(
        fc.array(event, { minLength: 1, maxLength: 30 }),
        fc.boolean(),
        fc.uniqueArray(fc.integer({ min: 1, max: 3000 }), { maxLength: 20 }),
        (events, done, cuts) => {
          const body = Buffer.from(events.join('') + (done ? DONE : ''));
          assert.deepEqual(read(body, cuts, false), read(body, cuts, true));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('a plain completion stream keeps every token and parses only the chunks of a new shape', () => {
    const words = [' a', ' "quoted"', ' b', '\\', ' c', ' é', ' d', ' e'];
    const body = Buffer.from(
      words.map((w) => sse(completionChunk(w))).join('') + sse(completionChunk(' end', 'length')) + DONE,
    );
    const parse = JSON.parse;
    let parses = 0;
    JSON.parse = (...args: Parameters<typeof JSON.parse>) => {
      parses++;
      return parse(...args);
    };
    let got: ReturnType<typeof read>;
    try {
      got = read(body, [], false);
    } finally {
      JSON.parse = parse;
    }
    assert.deepEqual(got.answer, [...words, ' end']);
    assert.equal(got.rec.chunk_times_ms.length, words.length + 1);
    assert.equal(got.rec.finish_reason, 'length');
    // the first chunk (and its shape's probe), the two with an escape, the last (and its probe)
    assert.equal(parses, 6);
  });
});
