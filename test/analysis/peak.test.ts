/**
 * vLLM bench's peak figures (`analysis/peak`), on hand-built timelines.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { peakFigures } from '../../src/analysis/peak.js';
import { emptyRecord, type Outcome, type RequestRecord } from '../../src/record/types.js';

function rec(sent: number, end: number, chunks: number[], outcome: Outcome = 'ok'): RequestRecord {
  const r = emptyRecord({ id: `r${sent}`, planned_id: `r${sent}`, attempt: 1, phase: 'measure', index: 0 });
  r.sent_at_ms = sent;
  r.end_at_ms = end;
  r.chunk_times_ms = chunks;
  r.outcome = outcome;
  return r;
}

test('peak output tokens per second: whole seconds counted from the first send', () => {
  const p = peakFigures([
    rec(0, 400, [80, 160, 240, 320]),
    rec(0, 400, [80, 160, 240, 320]),
    rec(400, 800, [480, 560, 640, 720]),
    rec(900, 1300, [980, 1060, 1140, 1220]),
  ]);
  // [0, 1 s): 4 + 4 + 4 + 1 (at 980 ms) chunks; [1 s, 2 s): 3.
  assert.equal(p.max_output_tokens_per_s, 13);
  // Two in flight until 400 ms; at 400 two end before one starts (half-open intervals).
  assert.equal(p.max_concurrent_requests, 2);
});

test('failed requests do not count, and no success gives null (never 0)', () => {
  const p = peakFigures([rec(0, 100, [50], 'http_error'), rec(0, 100, [], 'timeout')]);
  assert.deepEqual(p, { max_output_tokens_per_s: null, max_concurrent_requests: null });
  const q = peakFigures([
    rec(0, 500, [100, 200]),
    rec(100, 600, [300], 'stream_error'),
    rec(200, 300, [250]),
  ]);
  assert.equal(q.max_output_tokens_per_s, 3);
  assert.equal(q.max_concurrent_requests, 2);
});
