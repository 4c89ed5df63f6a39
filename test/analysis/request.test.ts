/**
 * @module test/analysis/request
 * Table tests of per-request metrics against hand-computed values.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chunkGaps, firstOutputAt, type RequestMetrics, requestMetrics } from '../../src/analysis/request.js';
import { rec } from './records.js';

/** Expected values, hand-computed from each case's timestamps (ms). */
type Expect = Partial<RequestMetrics>;

const cases: {
  name: string;
  r: ReturnType<typeof rec>;
  opts?: Parameters<typeof requestMetrics>[1];
  want: Expect;
}[] = [
  {
    name: 'content only, several tokens per chunk',
    // 3 chunks carry 5 tokens; sent 10 ms after planned; role-only chunk at 55.
    r: rec({
      id: 'a',
      planned: 0,
      sent: 10,
      first_chunk: 55,
      chunks: [
        [60, 'c'],
        [80, 'c'],
        [110, 'c'],
      ],
      end: 115,
      tokens: 5,
    }),
    want: {
      ttft_ms: 50,
      ttfr_ms: undefined,
      e2e_ms: 105,
      tpot_ms: 12.5, // (110 − 60) / (5 − 1)
      itl_ms: [20, 30],
      max_gap_ms: 30,
      ttft_from_planned_ms: 60,
      e2e_from_planned_ms: 115,
      lateness_ms: 10,
      queue_ms: 0,
      vllm_ttft_ms: 45, // role-only chunk counts for vLLM
      guidellm_tpot_ms: 20, // (110 − 10) / 5
      guidellm_itl_ms: 12.5,
      guidellm_itl_weight: 4,
    },
  },
  {
    name: 'reasoning then content: TTFT is content only, TPOT counts reasoning',
    r: rec({
      id: 'b',
      sent: 0,
      chunks: [
        [100, 'r'],
        [150, 'r'],
        [400, 'c'],
        [420, 'c'],
      ],
      end: 425,
      tokens: 4,
    }),
    want: {
      ttft_ms: 400,
      ttfr_ms: 100,
      e2e_ms: 425,
      tpot_ms: 320 / 3, // (420 − 100) / 3
      itl_ms: [50, 250, 20],
      max_gap_ms: 250, // the stall between reasoning and content
      vllm_ttft_ms: 100,
      guidellm_tpot_ms: 105, // 420 / 4
    },
  },
  {
    name: 'reasoning only (no_content): no TTFT',
    r: rec({
      id: 'c',
      sent: 5,
      chunks: [
        [30, 'r'],
        [45, 'r'],
      ],
      end: 50,
      tokens: 2,
      outcome: 'no_content',
    }),
    want: { ttft_ms: undefined, ttfr_ms: 25, e2e_ms: 45, tpot_ms: 15, itl_ms: [15], max_gap_ms: 15 },
  },
  {
    name: 'single token: no TPOT, no gaps',
    r: rec({ id: 'd', sent: 0, chunks: [[20, 'c']], end: 21, tokens: 1 }),
    want: {
      ttft_ms: 20,
      e2e_ms: 21,
      tpot_ms: undefined,
      itl_ms: [],
      max_gap_ms: undefined,
      guidellm_tpot_ms: 20,
      guidellm_itl_ms: undefined,
      guidellm_itl_weight: 0,
    },
  },
  {
    name: 'no usage: no TPOT and no guidellm dialects, timings still there',
    r: rec({
      id: 'e',
      sent: 0,
      chunks: [
        [10, 'c'],
        [30, 'c'],
      ],
      end: 30,
      noUsage: true,
    }),
    want: { ttft_ms: 10, e2e_ms: 30, tpot_ms: undefined, itl_ms: [20], guidellm_tpot_ms: undefined },
  },
  {
    name: 'length with reasoning only: truncated before content',
    r: rec({
      id: 'f',
      sent: 0,
      chunks: [
        [10, 'r'],
        [20, 'r'],
        [40, 'r'],
      ],
      end: 40,
      tokens: 3,
      outcome: 'length',
    }),
    want: { ttft_ms: undefined, ttfr_ms: 10, e2e_ms: 40, tpot_ms: 15, max_gap_ms: 20 },
  },
  {
    name: 'tool call before content counts as first output',
    r: rec({
      id: 'g',
      sent: 0,
      chunks: [
        [70, 't'],
        [90, 'c'],
      ],
      end: 95,
      tokens: 2,
    }),
    want: { ttft_ms: 70, tpot_ms: 20 },
  },
  {
    name: 'waited for a slot: queue = sent − planned',
    r: rec({ id: 'h', planned: 0, sent: 40, chunks: [[60, 'c']], end: 60, tokens: 1 }),
    opts: { waited_for_slot: true },
    want: { lateness_ms: 40, queue_ms: 40, ttft_ms: 20, ttft_from_planned_ms: 60 },
  },
  {
    name: 'retry: from-planned counts from the first attempt',
    r: rec({
      id: 'i2',
      planned_id: 'i',
      attempt: 2,
      planned: 100,
      sent: 100,
      chunks: [[150, 'c']],
      end: 160,
    }),
    opts: { planned_at_ms: 5 },
    want: { ttft_from_planned_ms: 145, e2e_from_planned_ms: 155, lateness_ms: 0, ttft_ms: 50 },
  },
  {
    name: 'not streamed: the body arrives whole, so only the end is known',
    // The client records a non-stream body as one chunk at its end (300 ms), 50 tokens.
    r: rec({ id: 'n', planned: 0, sent: 0, chunks: [[300, 'c']], end: 300, tokens: 50, stream: false }),
    want: {
      ttft_ms: undefined,
      ttfr_ms: undefined,
      e2e_ms: 300,
      tpot_ms: undefined,
      itl_ms: [],
      max_gap_ms: undefined,
      ttft_from_planned_ms: undefined,
      e2e_from_planned_ms: 300,
      vllm_ttft_ms: undefined,
      guidellm_tpot_ms: undefined,
      guidellm_itl_ms: undefined,
      guidellm_itl_weight: 0,
    },
  },
  {
    name: 'not streamed, reasoning and content in one body: still no first-token time',
    r: rec({
      id: 'n2',
      sent: 0,
      chunks: [
        [200, 'r'],
        [200, 'c'],
      ],
      end: 200,
      tokens: 40,
      stream: false,
    }),
    want: { ttft_ms: undefined, ttfr_ms: undefined, e2e_ms: 200, tpot_ms: undefined, itl_ms: [] },
  },
  {
    name: 'never sent: nothing computable',
    r: rec({ id: 'j', planned: 10, sent: null, end: null, outcome: 'cancelled' }),
    want: {
      ttft_ms: undefined,
      e2e_ms: undefined,
      lateness_ms: undefined,
      queue_ms: undefined,
      e2e_from_planned_ms: undefined,
    },
  },
];

describe('requestMetrics', () => {
  for (const c of cases) {
    it(c.name, () => {
      const m = requestMetrics(c.r, c.opts);
      for (const [k, v] of Object.entries(c.want)) {
        const got = m[k as keyof RequestMetrics];
        if (typeof v === 'number' && typeof got === 'number') {
          assert.ok(Math.abs(got - v) < 1e-9, `${k}: got ${got}, want ${v}`);
        } else {
          assert.deepEqual(got, v, k);
        }
      }
    });
  }

  it('chunkGaps and firstOutputAt read the chunk list', () => {
    const r = rec({
      id: 'k',
      sent: 0,
      chunks: [
        [5, 'r'],
        [9, 't'],
        [12, 'c'],
      ],
    });
    assert.deepEqual(chunkGaps(r), [4, 3]);
    assert.equal(firstOutputAt(r), 9);
  });
});
