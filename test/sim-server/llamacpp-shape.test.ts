/**
 * @module test/sim-server/llamacpp-shape
 * `servelab sim --engine llamacpp` plays llama.cpp's `llama-server`:
 * - field by field against the real server in `../shared/llamacpp` (keys and JSON types,
 *   recursively): `/v1/models`, `/props`, `/slots`, the `/metrics` names, a streamed chat's last
 *   chunks (with and without usage), a completions stream's last chunk, non-streamed bodies and
 *   the 400 `exceed_context_size_error` (`-c 512`). Without the binary the test skips with a
 *   one-line reason; under `CI=true` it fails;
 * - without it: the context split per slot (`-c 512 -np 4` → 256 tokens a slot, a prompt of 256
 *   refused), the per-slot prompt cache and the RAM prompt cache (`--cache-ram`), and through the
 *   CLI: every record's `server.prefill_ms` comes from llama.cpp-style `timings` and the client's
 *   TTFT covers it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { type RequestRecord, SUCCESS_OUTCOMES } from '../../src/record/types.js';
import { type LlamaServer, llamaServerMissing, startLlamaServer } from '../helpers/llama-server.js';
import { type Chunk, get, post, startSim, stream } from './helpers.js';
import '../helpers/node-warnings.js';

/** The JSON type of every leaf, by path: `{a: {b: 1}}` → `{"a.b": "number"}`; arrays by their first element. */
function shape(v: unknown, path = '', out: Record<string, string> = {}): Record<string, string> {
  if (v === null) out[path] = 'null';
  else if (Array.isArray(v)) {
    out[path] = 'array';
    if (v.length) shape(v[0], `${path}[]`, out);
  } else if (typeof v === 'object') {
    out[path] = 'object';
    for (const [k, x] of Object.entries(v as Record<string, unknown>))
      shape(x, path ? `${path}.${k}` : k, out);
  } else out[path] = typeof v;
  return out;
}

/** Paths of `sim` missing from `real` or of another type there. */
function extra(sim: unknown, real: unknown): string[] {
  const r = shape(real);
  return Object.entries(shape(sim))
    .filter(([p, t]) => r[p] !== t)
    .map(([p, t]) => `${p}: ${t} (real: ${r[p] ?? 'absent'})`);
}

/** Both ways: the same paths with the same types. */
function sameShape(what: string, sim: unknown, real: unknown): void {
  assert.deepEqual(
    { simOnly: extra(sim, real), realOnly: extra(real, sim) },
    { simOnly: [], realOnly: [] },
    what,
  );
}

const CHAT = { messages: [{ role: 'user', content: 'hello there, how are you today?' }], max_tokens: 5 };
const COMPLETION = { prompt: 'hello there, how are you today?', max_tokens: 5 };

/** What the comparison reads of one server, at `base` (no /v1). */
async function sample(base: string, longPrompt: string) {
  const models = (await get(`${base}/v1/models`)).json;
  const props = (await get(`${base}/props`)).json;
  const chatUsage = await stream(`${base}/v1/chat/completions`, {
    ...CHAT,
    stream: true,
    stream_options: { include_usage: true },
  });
  const chatPlain = await stream(`${base}/v1/chat/completions`, { ...CHAT, stream: true });
  const completion = await stream(`${base}/v1/completions`, { ...COMPLETION, stream: true });
  const chatBody = (await post(`${base}/v1/chat/completions`, CHAT)).json;
  const completionBody = (await post(`${base}/v1/completions`, COMPLETION)).json;
  const slots = (await get(`${base}/slots`)).json as Record<string, unknown>[];
  const metricsText = (await get(`${base}/metrics`)).text;
  const tooLong = await post(`${base}/v1/completions`, { prompt: longPrompt, max_tokens: 3 });
  const last = (s: { chunks: Chunk[] }, fromEnd: number) => s.chunks[s.chunks.length - fromEnd];
  return {
    models,
    props,
    chatUsageFinish: last(chatUsage, 2),
    chatUsageLast: last(chatUsage, 1),
    chatRole: chatPlain.chunks[0],
    chatToken: chatPlain.chunks[1],
    chatPlainLast: last(chatPlain, 1),
    completionToken: completion.chunks[0],
    completionLast: last(completion, 1),
    chatBody,
    completionBody,
    usedSlot: slots.find((s) => 'id_task' in s),
    idleSlot: slots.find((s) => !('id_task' in s)),
    metricNames: [...metricsText.matchAll(/^# TYPE (llamacpp:\S+) (\w+)/gm)]
      .map((m) => `${m[1]} ${m[2]}`)
      .sort(),
    tooLong: { status: tooLong.status, body: tooLong.json },
  };
}

const missing = llamaServerMissing();

describe('sim --engine llamacpp against the real llama-server', { skip: missing ?? false }, () => {
  let real: LlamaServer;
  // -c 2048 -np 4: 512 tokens a slot on both, so one slot stays idle and a long prompt is refused.
  const long = Array.from({ length: 600 }, () => 'word').join(' ');
  let realSample: Awaited<ReturnType<typeof sample>>;
  let simSample: Awaited<ReturnType<typeof sample>>;
  before(async () => {
    real = await startLlamaServer(['-c', '2048']);
    realSample = await sample(real.root, long);
    await real.close();
    const sim = await startSim({ engine: 'llamacpp', ctxSize: 2048, parallel: 4 });
    simSample = await sample(sim.url.replace(/\/v1$/, ''), long);
  });
  after(() => real?.close());

  for (const key of [
    'models',
    'chatUsageFinish',
    'chatUsageLast',
    'chatRole',
    'chatToken',
    'chatPlainLast',
    'completionToken',
    'completionLast',
    'chatBody',
    'completionBody',
    'idleSlot',
    'tooLong',
  ] as const)
    it(`${key}: the same keys and types`, () => sameShape(key, simSample[key], realSample[key]));

  it('props and a used slot: every field the simulator sends is the real one, with its type', () => {
    assert.deepEqual(extra(simSample.props, realSample.props), []);
    assert.deepEqual(extra(simSample.usedSlot, realSample.usedSlot), []);
    const p = simSample.props as { default_generation_settings: { n_ctx: number }; total_slots: number };
    const rp = realSample.props as typeof p;
    assert.equal(p.default_generation_settings.n_ctx, rp.default_generation_settings.n_ctx);
    assert.equal(p.total_slots, rp.total_slots);
  });

  it('/metrics: the same llamacpp:* names and types', () => {
    assert.deepEqual(simSample.metricNames, realSample.metricNames);
  });
});

describe('sim --engine llamacpp, on its own', () => {
  const ids = (n: number, from = 1000) => Array.from({ length: n }, (_, i) => from + i);

  it('splits -c between the slots as llama.cpp does, and refuses a prompt that fills a slot', async (t) => {
    const sim = await startSim({ engine: 'llamacpp', ctxSize: 512, parallel: 4 }, t);
    const base = sim.url.replace(/\/v1$/, '');
    const props = (await get(`${base}/props`)).json as Record<string, unknown>;
    assert.equal((props.default_generation_settings as { n_ctx: number }).n_ctx, 256);
    assert.equal(props.total_slots, 4);
    const ok = await post(`${sim.url}/v1/completions`, { prompt: ids(255), max_tokens: 30 });
    assert.equal(ok.status, 200);
    // The generation stops at the slot's end: 255 + 1 = 256.
    assert.equal((ok.json as { usage: { completion_tokens: number } }).usage.completion_tokens, 1);
    const refused = await post(`${sim.url}/v1/completions`, { prompt: ids(256), max_tokens: 3 });
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.json, {
      error: {
        code: 400,
        message: 'request (256 tokens) exceeds the available context size (256 tokens), try increasing it',
        type: 'exceed_context_size_error',
        n_prompt_tokens: 256,
        n_ctx: 256,
      },
    });
  });

  const cacheN = async (url: string, prompt: number[]) => {
    const r = await post(`${url}/v1/completions`, { prompt, max_tokens: 2 });
    return (r.json as { timings: { cache_n: number; prompt_n: number } }).timings;
  };

  it('a slot keeps its last prompt: a repeat reuses all but its last token, on the slot that held it', async (t) => {
    const sim = await startSim({ engine: 'llamacpp', parallel: 2, cacheRam: 0 }, t);
    const a = ids(100);
    const b = ids(100, 5000);
    assert.equal((await cacheN(sim.url, a)).cache_n, 0);
    assert.equal((await cacheN(sim.url, b)).cache_n, 0);
    // Two slots: A's is still there, found by similarity.
    const again = await cacheN(sim.url, a);
    assert.deepEqual([again.cache_n, again.prompt_n], [99, 1]);
    // A longer prompt sharing A's prefix reuses it.
    assert.equal((await cacheN(sim.url, [...a, ...ids(20, 9000)])).cache_n, 100);
  });

  it('one slot: the RAM prompt cache brings back a prompt the slot dropped, --cache-ram 0 does not', async (t) => {
    const a = ids(100);
    const b = ids(100, 5000);
    for (const [cacheRam, expected] of [
      [8192, 99],
      [0, 0],
    ] as const) {
      const sim = await startSim({ engine: 'llamacpp', parallel: 1, cacheRam }, t);
      await cacheN(sim.url, a);
      await cacheN(sim.url, b);
      assert.equal((await cacheN(sim.url, a)).cache_n, expected, `--cache-ram ${cacheRam}`);
    }
  });

  it('servelab run: every record has server.prefill_ms from llama.cpp timings, within its TTFT', async (t) => {
    const sim = await startSim({ engine: 'llamacpp', parallel: 2, timeScale: 10, seed: 1 }, t);
    const dir = mkdtempSync(join(tmpdir(), 'servelab-llamacpp-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const io = memoryIo({}, dir);
    const args = ['run', '--url', sim.url, '--requests', '8', '--concurrency', '4', '--seed', '1'];
    const code = await main(
      [...args, '--input-len', '256', '--output-len', '16', '--no-db', '--out', 'out'],
      io,
    );
    assert.equal(code, 0, `${io.out()}\n${io.err()}`);
    const records = readFileSync(join(dir, 'out', 'requests.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as RequestRecord)
      .filter((r) => r.phase === 'measure' && SUCCESS_OUTCOMES.includes(r.outcome));
    assert.equal(records.length, 8);
    for (const r of records) {
      const s = r.server;
      assert.equal(s?.source, 'llamacpp.timings', r.id);
      assert.equal(s?.prefill_ms, r.timings?.prompt_ms, r.id);
      const ttft = (r.first_content_at_ms as number) - (r.sent_at_ms as number);
      assert.ok(
        ttft >= (s?.queue_ms ?? 0) + (s?.prefill_ms as number),
        `${r.id}: TTFT ${ttft} < ${JSON.stringify(s)}`,
      );
    }
  });
});
