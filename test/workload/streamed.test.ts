/**
 * Streamed schedules and prompts (issue 28) are the eager ones, number for number: a seed gives
 * the same arrival offsets and the same specs whether they are built whole (`arrivalOffsetsMs`,
 * `buildWorkload`) or generated as the runner reads them (`streamArrivals`, `streamWorkload`).
 * The hashes were taken from the eager code before streaming existed (commit dd0bb7f), so a
 * change to what a seed produces fails here too, not only a difference between the two paths.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { type ArrivalOptions, arrivalOffsetsMs, streamArrivals } from '../../src/schedule/arrivals.js';
import { buildWorkload, streamWorkload, type WorkloadOptions } from '../../src/workload/index.js';
import type { RequestSpec, SpecStream } from '../../src/workload/types.js';

const hash = (x: unknown) => createHash('sha256').update(JSON.stringify(x)).digest('hex').slice(0, 16);
const pause = async () => undefined;

async function readAll(s: SpecStream): Promise<RequestSpec[]> {
  const out: RequestSpec[] = [];
  for (let i = 0; i < s.length; i++) out.push(await s.at(i));
  return out;
}

describe('streamed arrivals', () => {
  const cases: [ArrivalOptions, string][] = [
    [{ rateRps: 37, arrival: 'poisson', durationS: 30, seed: 42 }, '9cc72e7531d06715'],
    [{ rateRps: 37, arrival: 'gamma', burstiness: 0.5, durationS: 30, seed: 42 }, '9fd25ecb866d38c1'],
    [{ rateRps: 37, arrival: 'constant', durationS: 30, seed: 42 }, '9a833b367bdaf9bf'],
    [{ rateRps: 5, arrival: 'poisson', count: 200, seed: 3 }, '7d0f8473b9492f41'],
  ];
  it('the same offsets as the eager schedule, and as before streaming existed', async () => {
    for (const [opts, before] of cases) {
      const eager = arrivalOffsetsMs(opts);
      const streamed = await streamArrivals(opts, pause);
      assert.equal(streamed.length, eager.length);
      assert.deepEqual([...streamed], eager, opts.arrival);
      // Read twice, the same again (each read draws from the seed afresh).
      assert.deepEqual([...streamed], eager);
      assert.equal(hash(eager), before, JSON.stringify(opts));
    }
  });

  it('a schedule summed over several slices, with pauses between them, is still the eager one', async () => {
    const opts: ArrivalOptions = { rateRps: 1000, arrival: 'poisson', durationS: 600, seed: 9 };
    let pauses = 0;
    const streamed = await streamArrivals(opts, async () => {
      pauses++;
    });
    assert.ok(pauses >= 2, `summed in slices (${pauses} pauses)`);
    assert.deepEqual([...streamed], arrivalOffsetsMs(opts));
  });

  it('an aborted signal stops the summing: nothing is read from the schedule', async () => {
    const ac = new AbortController();
    ac.abort();
    const s = await streamArrivals(
      { rateRps: 200, arrival: 'poisson', durationS: 86_400, seed: 1 },
      pause,
      ac.signal,
    );
    assert.throws(() => [...s], /before every gap was summed/);
  });
});

describe('streamed workload', () => {
  const cases: [WorkloadOptions, string][] = [
    [
      { seed: 7, count: 60, inputLen: 'uniform:20-80', outputLen: 'uniform:5-50', model: 'qwen3-8b' },
      '75e548d199053d35',
    ],
    [
      {
        seed: 7,
        count: 60,
        inputLen: 64,
        outputLen: 16,
        sharedPrefixLen: 16,
        numPrefixGroups: 4,
        model: 'qwen3-8b',
      },
      'c8c63d39603b2893',
    ],
    [{ seed: 9, count: 60, inputLen: 'normal:50,10', outputLen: 'exp:20' }, 'a7fedd6b81e795f4'],
  ];
  it('synthetic prompts: the same specs as buildWorkload, and as before streaming existed', async () => {
    for (const [opts, before] of cases) {
      const eager = await buildWorkload(opts);
      const streamed = await streamWorkload(opts, { pause });
      assert.ok('streamed' in streamed.specs);
      assert.deepEqual(await readAll(streamed.specs as SpecStream), eager.specs);
      assert.equal(streamed.method, eager.method);
      assert.equal(hash(eager.specs), before, JSON.stringify(opts));
    }
  });

  it('from an index (the warm-up after the measured prompts): the tail of the eager build', async () => {
    const opts: WorkloadOptions = { seed: 3, count: 50, inputLen: 'uniform:10-40', outputLen: 'uniform:1-9' };
    const eager = await buildWorkload(opts);
    const tail = await streamWorkload(opts, { pause, from: 40 });
    assert.deepEqual(await readAll(tail.specs as SpecStream), eager.specs.slice(40));
  });

  it('a prompt and a prompt file stream too; a read backwards is refused', async () => {
    const file = '{"prompt":"a"}\n{"prompt":"b","output_len":3}\n';
    for (const opts of [
      { seed: 1, count: 5, prompt: 'hello', outputLen: 'uniform:1-9' },
      { seed: 1, count: 5, promptsFile: 'p.jsonl' },
    ] as WorkloadOptions[]) {
      const deps = { readText: async () => file };
      const eager = await buildWorkload(opts, deps);
      const streamed = await streamWorkload(opts, { ...deps, pause });
      const s = streamed.specs as SpecStream;
      assert.deepEqual(await readAll(s), eager.specs);
      await assert.rejects(s.at(1), /reads forward/);
    }
  });
});
