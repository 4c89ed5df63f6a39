/**
 * The simulator's `DCGM_FI_DEV_GPU_UTIL` is the busy share of the past sample period (NVML's
 * definition, `sim/server/metrics` GPU_UTIL_SAMPLE_MS), read over real HTTP on an injected
 * virtual clock: busy while a request runs, 0 once a whole sample period has passed idle, never
 * the last step's value kept forever.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { driveVirtual, VirtualClock } from '../../src/runtime/clock.js';
import { startSimServer } from '../../src/sim/server/index.js';
import { GPU_UTIL_SAMPLE_MS } from '../../src/sim/server/metrics.js';
import { get, post } from './helpers.js';

const GPU = '{gpu="0",device="nvidia0"}';

function utilOf(text: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`DCGM_FI_DEV_GPU_UTIL${GPU} `));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
}

describe('simulated GPU utilisation', () => {
  it('reads busy during a request and 0 once a sample period has passed idle', async (t) => {
    const clock = new VirtualClock();
    // Real HTTP on port 0; the engine's time is the injected clock's (time scale 1).
    const vsim = await startSimServer(
      { model: 'llama-3.1-8b', gpu: 'h100', timeScale: 1, port: 0 },
      { clock },
    );
    t.after(() => vsim.close());
    const metrics = async () => utilOf((await get(`${vsim.url}/metrics`)).text);

    assert.equal(await metrics(), 0, 'an engine that never ran reads 0');
    const res = await driveVirtual(
      clock,
      post(`${vsim.url}/v1/completions`, {
        model: vsim.modelId,
        prompt: 'keep the GPU busy',
        max_tokens: 200,
        ignore_eos: true,
      }),
    );
    assert.equal(res.status, 200);
    const endMs = clock.now();
    assert.ok(endMs > GPU_UTIL_SAMPLE_MS, `200 tokens take longer than a sample period (${endMs} ms)`);
    // The steps ran back to back up to the last one: the whole past period was busy.
    assert.equal(await metrics(), 100);
    // Half a period later, half of it was busy.
    clock.advanceTo(endMs + GPU_UTIL_SAMPLE_MS / 2);
    assert.equal(await metrics(), 50);
    // A whole idle period later the GPU reads idle, not the last step's 100.
    clock.advanceTo(endMs + GPU_UTIL_SAMPLE_MS);
    assert.equal(await metrics(), 0);
    clock.advanceTo(endMs + 60_000);
    assert.equal(await metrics(), 0);
  });
});
