/**
 * @module test/pipeline/otlp-join
 * Records wait in front of their sinks for the engine's span: joined whether the span comes
 * before or after the record, released with `server_reason: 'no_span'` when the grace period
 * ends, and passed straight through when the engine never answered them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OtlpSpan } from '../../src/monitor/index.js';
import { joinSpans } from '../../src/pipeline/otlp-join.js';
import { emptyRecord, type RequestRecord } from '../../src/record/types.js';
import type { RunObserver } from '../../src/runner/events.js';

function rec(id: string, trace: string, status = 200): RequestRecord {
  const r = emptyRecord({ id, planned_id: id, attempt: 1, phase: 'measure', index: 0 });
  r.trace_id = trace;
  r.http_status = status;
  r.outcome = status === 200 ? 'ok' : 'http_error';
  return r;
}

const span = (trace: string, prefillS: number): OtlpSpan => ({
  trace_id: trace,
  span_id: '00f067aa0ba902b7',
  parent_span_id: '',
  name: 'llm_request',
  attributes: { 'gen_ai.latency.time_in_model_prefill': prefillS, 'gen_ai.latency.time_in_queue': 0 },
});

function sink() {
  const seen: RequestRecord[] = [];
  const ends: string[] = [];
  const o: RunObserver = { onRecord: (r) => seen.push(r), onRunEnd: (why) => ends.push(why) };
  return { o, seen, ends };
}

describe('joinSpans', () => {
  it('joins a span that arrives after its record, and one that arrives before', async () => {
    const s = sink();
    const j = joinSpans([s.o]);
    j.observer.onRecord?.(rec('a', 'a'.repeat(32)));
    assert.equal(s.seen.length, 0, 'held until its span arrives');
    j.onSpans([span('a'.repeat(32), 0.05), span('b'.repeat(32), 0.07)]);
    assert.equal(s.seen.length, 1);
    j.observer.onRecord?.(rec('b', 'b'.repeat(32)));
    assert.equal(s.seen.length, 2);
    assert.deepEqual(
      s.seen.map((r) => [r.id, r.server?.prefill_ms, r.server?.source]),
      [
        ['a', 50, 'otlp'],
        ['b', 70, 'otlp'],
      ],
    );
    assert.deepEqual(await j.settle(1000), { expected: 2, joined: 2 });
  });

  it('releases the unjoined at the end of the grace period with a reason, and then the run end', async () => {
    const s = sink();
    const j = joinSpans([s.o]);
    j.observer.onRecord?.(rec('a', 'c'.repeat(32)));
    j.observer.onRecord?.(rec('e', 'd'.repeat(32), 400));
    const timed = rec('t', 'f'.repeat(32));
    timed.server = { queue_ms: null, prefill_ms: 5, decode_ms: 9, source: 'llamacpp.timings' };
    j.observer.onRecord?.(timed);
    j.observer.onRunEnd?.('completed');
    assert.deepEqual(
      s.seen.map((r) => r.id),
      ['e', 't'],
      'an error the engine never took, and a record its response timed, pass through',
    );
    assert.deepEqual(s.ends, [], 'the run end waits for the held records');
    assert.deepEqual(await j.settle(20), { expected: 1, joined: 0 });
    assert.deepEqual(
      s.seen.map((r) => [r.id, r.server, r.server_reason]),
      [
        ['e', null, undefined],
        ['t', timed.server, undefined],
        ['a', null, 'no_span'],
      ],
    );
    assert.deepEqual(s.ends, ['completed']);
  });

  it('ends the wait as soon as the last span is in', async () => {
    const s = sink();
    const j = joinSpans([s.o]);
    j.observer.onRecord?.(rec('a', 'e'.repeat(32)));
    const settled = j.settle(60_000);
    j.onSpans([span('e'.repeat(32), 0.01)]);
    assert.deepEqual(await settled, { expected: 1, joined: 1 });
  });
});
