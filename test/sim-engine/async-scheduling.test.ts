/**
 * vLLM V1's async scheduling in the engine (docs/sim.md "Fitted step-time model"): a request
 * that reaches the engine while a step runs joins the step after the next one (that one was
 * scheduled when the running one started); on an idle engine it is scheduled at once.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { simulateDetailed } from '../../src/sim/batch-driver.js';
import { resolveEngineConfig } from '../../src/sim/engine/config.js';
import { makeRequests } from './helpers.js';

const cfg = resolveEngineConfig({ model: 'llama-3.1-8b', gpu: 'h100', engine: 'vllm-v1' });

describe('async scheduling (vllm-v1)', () => {
  it('schedules a request on an idle engine in the step that starts when it arrives', () => {
    const res = simulateDetailed(cfg, makeRequests(1, 64, 8), { kind: 'open', arrivalsMs: [0] });
    assert.equal(res.server[0].queue_ms, 0);
  });

  it('makes a request that arrives mid-step wait for the rest of that step and the whole next one', () => {
    // Request 0 decodes alone for a long time; request 1 arrives in the middle of one of its steps.
    const reqs = makeRequests(2, 64, 400, { idPrefix: 'a' });
    reqs[1].maxTokens = 4;
    reqs[1].eosLen = 4;
    const probe = simulateDetailed(cfg, [reqs[0]], { kind: 'open', arrivalsMs: [0] });
    const t0 = probe.records[0].chunk_times_ms;
    const stepMs = t0[101] - t0[100];
    assert.ok(stepMs > 0);
    // Arrive so that request 1 reaches the engine halfway through a decode step.
    const admitOffset = probe.server[0].arrival_ms; // the API server's input path, request 0
    const stepEnds = probe.server[0].arrival_ms + probe.server[0].queue_ms + probe.server[0].prefill_ms;
    const sendAt = stepEnds + 50 * stepMs + stepMs / 2 - admitOffset;
    const res = simulateDetailed(cfg, reqs, { kind: 'open', arrivalsMs: [0, sendAt] });
    const q = res.server[1].queue_ms;
    assert.ok(q >= stepMs, `queued ${q} ms, one step is ${stepMs} ms`);
    assert.ok(q < 2 * stepMs + 1e-6, `queued ${q} ms, two steps are ${2 * stepMs} ms`);
  });

  it('leaves SGLang without it (scheduled at the next step)', () => {
    const sg = resolveEngineConfig({ model: 'llama-3.1-8b', gpu: 'h100', engine: 'sglang' });
    const reqs = makeRequests(2, 64, 400, { idPrefix: 's' });
    reqs[1].maxTokens = 4;
    reqs[1].eosLen = 4;
    const probe = simulateDetailed(sg, [reqs[0]], { kind: 'open', arrivalsMs: [0] });
    const t0 = probe.records[0].chunk_times_ms;
    const stepMs = t0[101] - t0[100];
    const res = simulateDetailed(sg, reqs, { kind: 'open', arrivalsMs: [0, t0[150] + stepMs / 2] });
    assert.ok(res.server[1].queue_ms < stepMs + 1e-6);
  });
});
