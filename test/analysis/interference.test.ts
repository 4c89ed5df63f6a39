/**
 * @module test/analysis/interference
 * Long-prefill interference: the gap split, the stall ratio, the client's prefill window, and
 * which timeline and which records `recordsInterference` reads.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  clientPrefillWindow,
  engineTimes,
  prefillInterference,
  prefillWindow,
  recordsInterference,
  splitGapsByOverlap,
} from '../../src/analysis/interference.js';
import type { RequestRecord } from '../../src/record/types.js';
import { rec } from './records.js';

/** A content-only record with tokens at `times`, sent at `sent`, prompt `prompt` tokens. */
const tokens = (
  id: string,
  sent: number,
  times: number[],
  prompt: number,
  over: Partial<RequestRecord> = {},
) => {
  const r = rec({ id, sent, chunks: times.map((t) => [t, 'c']), tokens: times.length, prompt });
  return Object.assign(r, over);
};
const isLong = (r: RequestRecord) => (r.usage?.prompt_tokens ?? 0) >= 1000;

describe('splitGapsByOverlap', () => {
  it('files a gap under overlap only when a prefill interval intersects it', () => {
    const { overlapping, clean } = splitGapsByOverlap([[0, 10, 20, 50, 60]], [[25, 45]]);
    assert.deepEqual(overlapping, [30]);
    assert.deepEqual(clean, [10, 10, 10]);
  });

  it('treats touching ends as no overlap (s < tₖ and e > tₖ₋₁)', () => {
    const { overlapping, clean } = splitGapsByOverlap(
      [[0, 10, 20]],
      [
        [10, 10],
        [20, 30],
      ],
    );
    assert.deepEqual(overlapping, []);
    assert.deepEqual(clean, [10, 10]);
  });
});

describe('prefillInterference', () => {
  it('stall ratio = mean overlapping gap / mean clean gap', () => {
    const p = prefillInterference([[0, 10, 20, 50, 60]], [[25, 45]], 'client');
    assert.equal(p.gaps_overlapping_ms.n, 1);
    assert.equal(p.gaps_clean_ms.mean, 10);
    assert.equal(p.stall_ratio, 3);
    assert.equal(p.intervals_from, 'client');
  });

  it('has no stall ratio without overlapping (or clean) gaps: null, not 0 or 1', () => {
    assert.equal(prefillInterference([[0, 10, 20]], [], 'client').stall_ratio, null);
    assert.equal(prefillInterference([[0, 10, 20]], [[0, 30]], 'client').stall_ratio, null);
  });
});

describe('clientPrefillWindow', () => {
  it('is [sent, first token-carrying chunk], reasoning included', () => {
    const r = rec({
      id: 'a',
      sent: 5,
      chunks: [
        [40, 'r'],
        [90, 'c'],
      ],
      tokens: 2,
    });
    assert.deepEqual(clientPrefillWindow(r), [5, 40]);
  });

  it('does not exist unsent, without tokens, or for a non-streamed body', () => {
    assert.equal(clientPrefillWindow(rec({ id: 'b', sent: null, outcome: 'cancelled' })), null);
    assert.equal(clientPrefillWindow(rec({ id: 'c', sent: 0, end: 10, outcome: 'http_error' })), null);
    assert.equal(
      clientPrefillWindow(rec({ id: 'd', sent: 0, chunks: [[80, 'c']], tokens: 9, stream: false })),
      null,
    );
  });
});

describe('prefillWindow', () => {
  it("is the engine's prefill ending at the first chunk, never before the send; else the client's", () => {
    const r = tokens('a', 10, [60, 70], 100);
    assert.deepEqual(prefillWindow(r), { from: 10, to: 60, source: 'client' });
    const timed = (prefill_ms: number) =>
      Object.assign(tokens('b', 10, [60, 70], 100), {
        server: { queue_ms: null, prefill_ms, decode_ms: 10, source: 'llamacpp.timings' },
      });
    assert.deepEqual(prefillWindow(timed(15)), { from: 45, to: 60, source: 'server' });
    assert.deepEqual(prefillWindow(timed(80)), { from: 10, to: 60, source: 'server' });
    assert.equal(prefillWindow(rec({ id: 'c', sent: null, outcome: 'cancelled' })), null);
  });
});

describe('recordsInterference', () => {
  // Two decoders with 10 ms gaps except 30 ms across [100, 130]; a long prompt prefills over
  // [95, 125] on the client's clock.
  const decoder = (id: string) => tokens(id, 0, [60, 70, 80, 90, 100, 130, 140], 100);
  const long = tokens('L', 95, [125], 4000);

  it("reads the client's windows and chunk times, decoders = successful measured non-long requests", () => {
    const failed = tokens('f', 0, [60, 200], 100, { outcome: 'stream_error' });
    const warm = tokens('w', 0, [60, 200], 100, { phase: 'warmup' });
    const p = recordsInterference([decoder('a'), decoder('b'), long, failed, warm], isLong);
    assert.equal(p.intervals_from, 'client');
    // Per decoder: gaps 90→100 and 100→130 overlap [95, 125]; four clean 10 ms gaps.
    assert.equal(p.gaps_overlapping_ms.n, 4);
    assert.equal(p.gaps_overlapping_ms.mean, 20);
    assert.equal(p.gaps_clean_ms.n, 8);
    assert.equal(p.stall_ratio, 2);
  });

  it("takes the engine's timeline when every record used carries the server's timings", () => {
    const engine = (r: RequestRecord, token_ms: number[], prefill_ms: number) =>
      Object.assign(r, { timings: { token_ms, prefill_ms } });
    const recs = [
      engine(decoder('a'), [10, 20, 30, 60, 70], 5),
      engine(tokens('L', 95, [125], 4000), [50], 25),
    ];
    const p = recordsInterference(recs, isLong);
    assert.equal(p.intervals_from, 'server');
    // Long prefill [25, 50] on the engine clock overlaps the gaps 20→30 and 30→60.
    assert.deepEqual([p.gaps_overlapping_ms.n, p.gaps_overlapping_ms.mean], [2, 20]);
    assert.deepEqual([p.gaps_clean_ms.n, p.gaps_clean_ms.mean], [2, 10]);
    // One decoder without timings: the client's chunk times for all, each long window still the
    // engine's prefill (25 ms), ending at the long request's first chunk (125).
    const mixed = recordsInterference([...recs, decoder('b')], isLong);
    assert.equal(mixed.intervals_from, 'server');
    // [100, 125] overlaps each decoder's 100→130 gap only.
    assert.deepEqual([mixed.gaps_overlapping_ms.n, mixed.gaps_overlapping_ms.mean], [2, 30]);
    // A long prompt the engine did not time: its client window [sent, first chunk], said so.
    assert.equal(recordsInterference([decoder('a'), long], isLong).intervals_from, 'client');
  });

  it("uses llama.cpp's own prefill (server.prefill_ms) on the client's clock, ending at the first chunk", () => {
    const llama = (r: RequestRecord, prefill_ms: number) =>
      Object.assign(r, {
        timings: { prompt_ms: prefill_ms, predicted_ms: 50 },
        server: { queue_ms: null, prefill_ms, decode_ms: 50, source: 'llamacpp.timings' },
      });
    // The long prompt was sent at 95 but queued: its own prefill is [115, 125], not [95, 125].
    const recs = [llama(decoder('a'), 40), llama(decoder('b'), 40), llama(tokens('L', 95, [125], 4000), 10)];
    const p = recordsInterference(recs, isLong);
    assert.equal(p.intervals_from, 'server');
    // Per decoder only the gap 100→130 overlaps [115, 125]; five clean 10 ms gaps.
    assert.deepEqual([p.gaps_overlapping_ms.n, p.gaps_overlapping_ms.mean], [2, 30]);
    assert.deepEqual([p.gaps_clean_ms.n, p.gaps_clean_ms.mean], [10, 10]);
    assert.equal(p.stall_ratio, 3);
    assert.deepEqual(engineTimes(recs[2]), { tokens: [125], prefill_ms: 10, clock: 'client' });
    // The simulator's engine ms become wall ms under its time scale.
    const scaled = Object.assign(decoder('s'), {
      timings: { token_ms: [40, 60], prefill_ms: 20, time_scale: 10 },
    });
    assert.deepEqual(engineTimes(scaled), { tokens: [4, 6], prefill_ms: 2, clock: 'engine' });
    // Engine-clock and client-clock records do not mix: the client's chunk times for all, with
    // the long prompt's own prefill window, as above.
    const simulated = Object.assign(decoder('c'), { timings: { token_ms: [1, 2, 3], prefill_ms: 1 } });
    const both = recordsInterference([...recs, simulated], isLong);
    assert.equal(both.intervals_from, 'server');
    assert.equal(both.stall_ratio, 3);
  });
});
