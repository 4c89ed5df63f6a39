import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '../../src/core/errors.js';
import {
  parseStages,
  stageOffsetsMs,
  stageOfRequests,
  stageRequestCount,
} from '../../src/schedule/stages.js';
import { type PlanRequest, simulateDetailed } from '../../src/sim/batch-driver.js';
import { resolveEngineConfig } from '../../src/sim/engine/config.js';
import {
  sharedPrefixOrder,
  sharedPrefixSlotAt,
  sharedPrefixTokenIds,
} from '../../src/workload/shared-prefix.js';

describe('load stages', () => {
  it('parses RATExDURATION lists and rejects bad ones with a hint', () => {
    assert.deepEqual(parseStages('2.5x600, 6x600'), [
      { rateRps: 2.5, durationS: 600 },
      { rateRps: 6, durationS: 600 },
    ]);
    assert.throws(
      () => parseStages('2.5x600,fast'),
      (e) => e instanceof UsageError && /stage 2/.test(e.message),
    );
    assert.throws(() => parseStages('0.1x5'), UsageError); // int(0.5) = 0 requests
  });

  it("counts int(rate × duration) and ends each stage's schedule at its duration", () => {
    assert.equal(stageRequestCount({ rateRps: 0.1, durationS: 30 }), 3);
    assert.equal(stageRequestCount({ rateRps: 2.5, durationS: 3 }), 7);
    for (const arrival of ['constant', 'poisson', 'gamma'] as const) {
      const o = stageOffsetsMs(
        { rateRps: 5, durationS: 20 },
        arrival,
        7,
        arrival === 'gamma' ? 0.5 : undefined,
      );
      assert.equal(o.length, 100);
      assert.ok(o[0] > 0, 'the first request waits one gap, as upstream');
      assert.equal(o.at(-1), 20_000);
      for (let i = 1; i < o.length; i++) assert.ok(o[i] >= o[i - 1]);
    }
    assert.deepEqual(stageOffsetsMs({ rateRps: 2, durationS: 2 }, 'constant', 1), [500, 1000, 1500, 2000]);
    assert.deepEqual(
      stageOffsetsMs({ rateRps: 5, durationS: 20 }, 'poisson', 3),
      stageOffsetsMs({ rateRps: 5, durationS: 20 }, 'poisson', 3),
    );
    assert.deepEqual(
      stageOfRequests([
        { rateRps: 1, durationS: 2 },
        { rateRps: 1, durationS: 1 },
      ]),
      [0, 0, 1],
    );
  });
});

describe('shared-prefix groups', () => {
  const spec = { numGroups: 3, promptsPerGroup: 4, systemPromptLen: 50, questionLen: 20, outputLen: 8 };
  it('shuffles the N·M prompts once and cycles through them', () => {
    const order = sharedPrefixOrder(spec, 1);
    assert.equal(order.length, 12);
    assert.equal(new Set(order.map((s) => `${s.group}/${s.question}`)).size, 12);
    assert.deepEqual(sharedPrefixSlotAt(order, 13), order[1]);
    const ids = sharedPrefixTokenIds(spec, 1, 1000, 1.1);
    assert.equal(ids[0].length, 55 + 22);
    const sys = (k: number) => ids[k].slice(0, 55).join(',');
    for (let k = 0; k < 12; k++)
      for (let j = 0; j < 12; j++) assert.equal(sys(k) === sys(j), order[k].group === order[j].group);
  });
});

describe('staged load through the simulator', () => {
  const cfg = resolveEngineConfig({ model: 'qwen3-0.6b', gpu: 'h100', maxModelLen: 4096 });
  const spec = { numGroups: 2, promptsPerGroup: 5, systemPromptLen: 200, questionLen: 40, outputLen: 16 };
  const stages = [
    { rateRps: 4, durationS: 10 },
    { rateRps: 8, durationS: 5 },
  ];
  const prompts = sharedPrefixTokenIds(spec, 5, 100_000);
  const stageOf = stageOfRequests(stages);
  const reqs: PlanRequest[] = [];
  stages.forEach((s, si) => {
    for (let n = 0; n < stageRequestCount(s); n++) {
      const i = reqs.length;
      reqs.push({
        id: `s${si}-${n}`,
        planned_id: `s${si}-${n}`,
        phase: 'measure',
        index: i,
        spec: { index: i, input_len: 240, output_len: 16 },
        promptIds: prompts[n % prompts.length],
        maxTokens: 16,
        eosLen: 16,
      });
    }
  });
  const res = simulateDetailed(cfg, reqs, {
    kind: 'staged',
    stageOffsetsMs: stages.map((s, i) => stageOffsetsMs(s, 'poisson', 42 + i)),
    pauseMs: 1000,
  });

  it('sends each stage its count, the next stage after the previous one drains plus the pause', () => {
    assert.equal(res.records.length, 40 + 40);
    const byStage = [0, 1].map((s) => res.records.filter((_, i) => stageOf[i] === s));
    assert.deepEqual(
      byStage.map((r) => r.length),
      stages.map(stageRequestCount),
    );
    const lastEnd = Math.max(...byStage[0].map((r) => r.end_at_ms!));
    const firstSent = Math.min(...byStage[1].map((r) => r.sent_at_ms!));
    assert.ok(firstSent > lastEnd + 1000, `${firstSent} after ${lastEnd} + 1000`);
    assert.ok(res.records.every((r) => r.done));
  });

  it('repeats prompts in the groups’ cycle: the prefix cache hits all but the first of each', () => {
    // 10 distinct prompts; only the first sight of each group's system prompt and of each
    // question misses. Cached tokens are whole blocks, so compare with the block-rounded bound.
    const { prefixQueries, prefixHits } = res.stats;
    const rate = prefixHits / prefixQueries;
    assert.ok(rate > 0.8, `hit rate ${rate}`);
    const later = res.server.slice(10, 40);
    assert.ok(
      later.every((s) => s.cached_tokens >= 224),
      'a repeat hits its whole prompt but the last block',
    );
  });
});
