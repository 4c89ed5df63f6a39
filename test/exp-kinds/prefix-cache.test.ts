import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { UsageError } from '../../src/core/errors.js';
import { type PrefixCacheResult, rotateDocument } from '../../src/exp/kinds/prefix-cache.js';
import { startSimServer } from '../../src/sim/server/index.js';
import { exp, run } from './helpers.js';

const file = (sim: string, extra = '') => `
kind: prefix-cache
name: pc
targets:
  t:
    sim: ${sim}
${extra}
workload: {output_len: 8}
prefix_cache: {document_tokens: 1024, question_tokens: 24, requests_per_phase: 3, documents: 3}
`;

function phases(r: PrefixCacheResult, target = 't') {
  const t = r.targets.find((x) => x.target === target);
  assert.ok(t);
  return Object.fromEntries(t.phases.map((p) => [p.phase, p]));
}

test('rotating a document keeps its words and changes its start', () => {
  const doc = 'alpha beta gamma delta epsilon zeta';
  const r = rotateDocument(doc, 1, 3);
  assert.notEqual(r.slice(0, 5), doc.slice(0, 5));
  assert.deepEqual(r.split(/\s+/).sort(), doc.split(/\s+/).sort());
});

test('virtual clock: hits only in exact-repeat and new-question, and prefill shrinks with them', async () => {
  const { result } = await run(exp(file('{model: qwen3-0.6b, gpu: h100, clock: virtual}')));
  const r = result.results as PrefixCacheResult;
  const p = phases(r);
  assert.equal(p.cold.cached_tokens_mean, 0);
  assert.equal(p.scattered.cached_tokens_mean, 0);
  // Exact repeat: all but the last partial block is cached; new question: the document.
  assert.ok((p['exact-repeat'].hit_ratio as number) > 0.95);
  assert.ok((p['new-question'].cached_tokens_mean as number) >= 1000);
  assert.ok((p['new-question'].hit_ratio as number) < (p['exact-repeat'].hit_ratio as number));
  assert.equal(p.cold.cached_source, 'usage');
  assert.equal(p.cold.prefill_source, 'server');
  // Engine-side prefill (virtual ms) is shorter with the document cached.
  assert.ok((p['new-question'].prefill_ms_p50 as number) < (p.cold.prefill_ms_p50 as number));
  assert.equal(r.targets[0].hits_as_expected, true);
  assert.equal(
    r.targets[0].cold_state,
    'reset',
    'the in-process simulator resets its cache as the HTTP one does',
  );
});

// A server with /v1/models but no cache reset endpoint (neither vLLM's nor SGLang's).
let bare: Server;
let bareUrl = '';
before(async () => {
  bare = createServer((req, res) => {
    if (req.url === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'm', object: 'model', owned_by: 'vllm' }] }));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
  bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/v1`;
});
after(() => new Promise<void>((r) => bare.close(() => r())));

test('over HTTP (sim, time scale 20): usage.cached_tokens shows hits only where expected', async () => {
  const { result } = await run(
    exp(file('{model: qwen3-0.6b, gpu: h100, time_scale: 20, expose_timings: true}')),
  );
  const r = result.results as PrefixCacheResult;
  const p = phases(r);
  assert.equal(r.targets[0].cold_state, 'reset');
  assert.equal(p.cold.requests, 3);
  // Every cold request came after a reset: no hits at all, although the prompts are identical.
  assert.equal(p.cold.cached_tokens_mean, 0);
  assert.ok((p['exact-repeat'].hit_ratio as number) > 0.95);
  assert.ok((p['new-question'].cached_tokens_mean as number) >= 1000);
  assert.equal(p.scattered.cached_tokens_mean, 0);
  assert.ok(r.targets[0].hits_as_expected);
  // Server-side prefill (engine ms, from the exposed timings) shrinks when the document is cached.
  assert.equal(p.cold.prefill_source, 'server');
  assert.ok((p['new-question'].prefill_ms_p50 as number) < (p.cold.prefill_ms_p50 as number));
});

test('without usage.cached_tokens, cached tokens come from the /metrics prefix-cache counters', async () => {
  // A url target: a simulator that leaves prompt_tokens_details out of usage.
  const sim = await startSimServer({
    model: 'qwen3-0.6b',
    gpu: 'h100',
    timeScale: 20,
    enablePromptTokensDetails: false,
  });
  try {
    const { result } = await run(
      exp(`
kind: prefix-cache
name: pc-metrics
model: ${sim.modelId}
targets:
  t:
    url: ${sim.url}/v1
workload: {output_len: 8}
prefix_cache: {document_tokens: 512, requests_per_phase: 2, documents: 2}
`),
    );
    const p = phases(result.results as PrefixCacheResult);
    assert.equal(p.cold.cached_source, 'metrics');
    assert.equal(p.cold.cached_tokens_mean, 0);
    assert.ok((p['exact-repeat'].hit_ratio as number) > 0.9);
    assert.equal(p.scattered.cached_tokens_mean, 0);
  } finally {
    await sim.close();
  }
});

test('a target without a cache reset is refused next to one that has it (warm vs cold)', async () => {
  const e = exp(`
kind: prefix-cache
name: pc
model: m
targets:
  sim:
    sim: {model: qwen3-0.6b, gpu: h100, time_scale: 20}
  bare:
    url: ${bareUrl}
prefix_cache: {document_tokens: 256, requests_per_phase: 1}
`);
  await assert.rejects(run(e), (err: unknown) => {
    assert.ok(err instanceof UsageError);
    const text = err.problems.map((p) => `${p.path} ${p.message} ${p.hint}`).join('\n');
    assert.match(text, /targets\.bare/);
    assert.match(text, /warm target with a cold one is refused/);
    assert.match(text, /restart the engine/);
    assert.doesNotMatch(text, /targets\.sim/);
    return true;
  });
});
