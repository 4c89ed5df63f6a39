/**
 * @module test/sim-engine/runner-parity
 * The engine fast path (`simulateDetailed`, which re-implements the closed, open and capped
 * loops without HTTP) against the measurement path every user command takes: `runLoad` driving
 * the HTTP client through the in-process simulator's dispatcher on a {@link VirtualClock}. For
 * the same specs, engine and seed, every request must come out the same: token counts, finish
 * reason and every time (send, first token, end, each chunk), to within float rounding.
 *
 * Requests sent at the same instant (a closed loop's first wave, two equal open-loop offsets)
 * reach the engine one after another on both paths, through the API server's input path. One
 * field differs by design and is checked as such:
 * `headers_at_ms`, which the server writes on arrival and the fast path stamps when the request
 * reaches the engine, after the API server's input path ({@link ApiServerQueue.admitMs}).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createHttpTarget } from '../../src/client/http.js';
import type { RequestRecord } from '../../src/record/types.js';
import type { LoadMode } from '../../src/runner/load.js';
import { runLoad } from '../../src/runner/loops.js';
import { driveVirtual, VirtualClock } from '../../src/runtime/clock.js';
import { Rng } from '../../src/runtime/rng.js';
import { arrivalOffsetsMs } from '../../src/schedule/index.js';
import { type PlanLoad, planRequestFromSpec, simulateDetailed } from '../../src/sim/batch-driver.js';
import { resolveEngineConfig } from '../../src/sim/engine/config.js';
import { ApiServerQueue } from '../../src/sim/frontend.js';
import { startInProcessSim } from '../../src/sim/server/inprocess.js';
import type { EngineOptions } from '../../src/sim/settings.js';
import { tokenizerFor } from '../../src/tokenizer/index.js';
import type { RequestSpec } from '../../src/workload/types.js';

const MODEL = 'llama-3.1-8b';
const SERVER_SEED = 7;
const EPS_MS = 1e-6;

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'kernel', 'tensor', 'batch', 'cache', 'token', 'model'];

/**
 * `n` chat specs: prompts of 30–330 words, a third of them behind one shared 120-word prefix
 * (so some prompt tokens hit the prefix cache), max_tokens 16–200 (some stop on their own first).
 */
function specs(n: number): RequestSpec[] {
  const rng = new Rng(5);
  const words = (k: number) => Array.from({ length: k }, () => WORDS[rng.int(0, WORDS.length - 1)]).join(' ');
  const prefix = words(120);
  return Array.from({ length: n }, (_, index) => ({
    index,
    prompt: `${index % 3 === 0 ? `${prefix} ` : ''}${words(30 + rng.int(0, 300))}`,
    input_len: null,
    output_len: 16 + rng.int(0, 184),
  }));
}

/** An engine profile's settings (`--engine` and its knobs); empty: the default vllm-v1. */
type Profile = Partial<
  Pick<EngineOptions, 'engine' | 'numSchedulerSteps' | 'schedulePolicy' | 'chunkedPrefillSize'>
>;

/** Records of the measurement path: runLoad → HTTP client → in-process sim, on a virtual clock. */
async function measured(
  list: RequestSpec[],
  load: LoadMode,
  profile: Profile = {},
): Promise<RequestRecord[]> {
  const clock = new VirtualClock();
  const sim = await startInProcessSim(
    { model: MODEL, gpu: 'h100', seed: SERVER_SEED, ...profile },
    { clock },
  );
  const client = createHttpTarget({
    baseUrl: `${sim.url}/v1`,
    endpoint: 'chat',
    model: sim.modelId,
    stream: true,
    temperature: 0,
    clock,
    dispatcher: sim.dispatcher,
  });
  try {
    const noHealth = () => ({
      stop: () => ({
        event_loop_delay_ms: { mean: null, p50: null, p99: null, max: null },
        cpu_percent: null,
      }),
    });
    const res = await driveVirtual(
      clock,
      runLoad({ load, specs: list, runPrefix: 'm' }, { target: client, clock, health: noHealth }),
    );
    return res.records;
  } finally {
    await client.close();
    await sim.close();
  }
}

/** Records of the engine fast path for the same specs. */
async function fast(list: RequestSpec[], load: PlanLoad, profile: Profile = {}): Promise<RequestRecord[]> {
  const cfg = resolveEngineConfig({ model: MODEL, gpu: 'h100', ...profile });
  const tok = await tokenizerFor(MODEL);
  const reqs = list.map((s, i) =>
    planRequestFromSpec(s, tok, cfg, `p${i}`, {
      endpoint: 'chat',
      temperature: 0,
      serverSeed: SERVER_SEED,
    }),
  );
  return simulateDetailed(cfg, reqs, load).records;
}

function byIndex(recs: RequestRecord[]): Map<number, RequestRecord> {
  return new Map(recs.map((r) => [r.index, r]));
}

/** Every difference between the two paths' records, as `index field: measured vs fast` lines. */
function differences(m: RequestRecord[], f: RequestRecord[]): string[] {
  const out: string[] = [];
  const fm = byIndex(f);
  // When each measured request reached the engine: the API server's input path over the
  // server's arrival (headers) times, in arrival order, as the server ran it.
  const input = new ApiServerQueue();
  const admitted = new Map<number, number>();
  for (const a of [...m].sort((x, y) => (x.headers_at_ms ?? 0) - (y.headers_at_ms ?? 0) || x.index - y.index))
    if (a.headers_at_ms !== null) admitted.set(a.index, input.admitMs(a.headers_at_ms));
  for (const a of m) {
    const b = fm.get(a.index);
    if (!b) {
      out.push(`${a.index}: missing from the fast path`);
      continue;
    }
    const eq = (field: string, x: unknown, y: unknown) => {
      if (x !== y) out.push(`${a.index} ${field}: ${x} vs ${y}`);
    };
    const near = (field: string, x: number | null, y: number | null) => {
      if (x === null || y === null ? x !== y : Math.abs(x - y) > EPS_MS)
        out.push(`${a.index} ${field}: ${x} vs ${y}`);
    };
    eq('outcome', a.outcome, b.outcome);
    eq('finish_reason', a.finish_reason, b.finish_reason);
    eq('prompt_tokens', a.usage?.prompt_tokens, b.usage?.prompt_tokens);
    eq('completion_tokens', a.usage?.completion_tokens, b.usage?.completion_tokens);
    eq('cached_tokens', a.usage?.cached_tokens, b.usage?.cached_tokens);
    near('planned_at_ms', a.planned_at_ms, b.planned_at_ms);
    near('sent_at_ms', a.sent_at_ms, b.sent_at_ms);
    // Known difference: the server writes the headers when the request arrives, before the API
    // server's input path has handled it; the fast path stamps them when it reaches the engine.
    near('headers_at_ms at the engine', admitted.get(a.index) ?? null, b.headers_at_ms);
    near('first_chunk_at_ms', a.first_chunk_at_ms, b.first_chunk_at_ms);
    near('first_content_at_ms', a.first_content_at_ms, b.first_content_at_ms);
    near('last_token_at_ms', a.last_token_at_ms, b.last_token_at_ms);
    near('last_content_at_ms', a.last_content_at_ms, b.last_content_at_ms);
    eq('done', a.done, b.done);
    eq('has_content', a.has_content, b.has_content);
    eq('http_status', a.http_status, b.http_status);
    eq('input_len', a.input_len, b.input_len);
    eq('output_len', a.output_len, b.output_len);
    eq('chunk_kinds', a.chunk_kinds.join(''), b.chunk_kinds.join(''));
    near('first_token_at_ms', a.first_token_at_ms, b.first_token_at_ms);
    near('end_at_ms', a.end_at_ms, b.end_at_ms);
    eq('chunks', a.chunk_times_ms.length, b.chunk_times_ms.length);
    const n = Math.min(a.chunk_times_ms.length, b.chunk_times_ms.length);
    for (let k = 0; k < n; k++) near(`chunk ${k}`, a.chunk_times_ms[k], b.chunk_times_ms[k]);
  }
  if (m.length !== f.length) out.push(`records: ${m.length} vs ${f.length}`);
  return out;
}

const N = 24;

/**
 * Open-loop send offsets: a seeded Poisson schedule at `rateRps`, with the second request moved
 * onto the first (two requests reaching an idle engine at the same instant).
 */
function poissonOffsets(rateRps: number): number[] {
  const at = arrivalOffsetsMs({ rateRps, arrival: 'poisson', count: N, seed: 3 });
  at[1] = at[0];
  return at;
}

/** Both paths' records for one load, checked equal; returns the measured records. */
async function agree(
  list: RequestSpec[],
  load: LoadMode,
  planLoad: PlanLoad,
  profile: Profile = {},
): Promise<RequestRecord[]> {
  const m = await measured(list, load, profile);
  const f = await fast(list, planLoad, profile);
  assert.equal(m.length, N);
  assert.ok(
    m.every((r) => r.outcome === 'ok' || r.outcome === 'length'),
    m.map((r) => r.outcome).join(','),
  );
  const d = differences(m, f);
  assert.deepEqual(d.slice(0, 20), [], `${d.length} differences (first 20 shown)`);
  // The workload exercises what could differ: both finish reasons and prefix-cache hits.
  assert.ok(m.some((r) => r.finish_reason === 'stop') && m.some((r) => r.finish_reason === 'length'));
  assert.ok(
    m.some((r) => (r.usage?.cached_tokens ?? 0) > 0),
    'some prompt tokens hit the cache',
  );
  return m;
}

describe('simulateDetailed gives the records of the measurement path', () => {
  it('closed loop, concurrency 4', async () => {
    const m = await agree(
      specs(N),
      { kind: 'closed', concurrency: 4, requests: N },
      { kind: 'closed', concurrency: 4 },
    );
    // The first wave was sent together, but the API server's input path hands it to the engine
    // one request after another: no first token comes before the previous request's, and the
    // wave no longer shares one prefill step.
    const ttft = [0, 1, 2, 3].map((i) => byIndex(m).get(i)?.first_token_at_ms ?? 0);
    for (const i of [1, 2, 3]) assert.ok(ttft[i] >= ttft[i - 1], `request ${i}`);
    assert.ok(ttft[3] > ttft[0]);
  });

  it('open loop on a Poisson schedule', async () => {
    const arrivalsMs = poissonOffsets(4);
    await agree(specs(N), { kind: 'open', arrivalsMs }, { kind: 'open', arrivalsMs });
  });

  it('open loop capped at 2 in flight', async () => {
    const arrivalsMs = poissonOffsets(8);
    const m = await agree(
      specs(N),
      { kind: 'open', arrivalsMs, maxConcurrency: 2 },
      { kind: 'open', arrivalsMs, maxConcurrency: 2 },
    );
    assert.ok(
      m.some((r) => (r.sent_at_ms ?? 0) > (r.planned_at_ms ?? 0) + 1),
      'the cap held some requests back',
    );
  });
});

describe('simulateDetailed agrees with the measurement path under every engine profile', () => {
  const profiles: [string, Profile][] = [
    ['vllm-v0 with 4 scheduler steps', { engine: 'vllm-v0', numSchedulerSteps: 4 }],
    [
      'sglang, lpm, chunked prefill of 512',
      { engine: 'sglang', schedulePolicy: 'lpm', chunkedPrefillSize: 512 },
    ],
  ];
  for (const [name, profile] of profiles)
    it(`${name}: open loop on a Poisson schedule`, async () => {
      const arrivalsMs = poissonOffsets(4);
      await agree(specs(N), { kind: 'open', arrivalsMs }, { kind: 'open', arrivalsMs }, profile);
    });
});
