/**
 * The simulator's `DCGM_FI_DEV_GPU_UTIL` says whether a step runs at the read instant (NVML's
 * definition at a sample period shorter than a step, `sim/server/metrics` SimGpuInfo.busyNow),
 * read over real HTTP on an injected virtual clock: 100 while a request runs, 0 at the first read
 * after the last step ends, never the last step's value kept.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { driveVirtual, VirtualClock } from '../../src/runtime/clock.js';
import { startSimServer } from '../../src/sim/server/index.js';
import { get, post } from './helpers.js';

const GPU = '{gpu="0",device="nvidia0"}';

function utilOf(text: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`DCGM_FI_DEV_GPU_UTIL${GPU} `));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
}

describe('simulated GPU utilisation', () => {
  it('reads 100 while a step runs and 0 at the first read after the last step ends', async (t) => {
    const clock = new VirtualClock();
    // Real HTTP on port 0; the engine's time is the injected clock's (time scale 1).
    const vsim = await startSimServer(
      { model: 'llama-3.1-8b', gpu: 'h100', timeScale: 1, port: 0 },
      { clock },
    );
    t.after(() => vsim.close());
    const metrics = async () => utilOf((await get(`${vsim.url}/metrics`)).text);

    assert.equal(await metrics(), 0, 'an engine that never ran reads 0');
    // A streamed request: read /metrics when its first chunk arrives, with steps still to run.
    const busy = await driveVirtual(
      clock,
      (async () => {
        const res = await fetch(`${vsim.url}/v1/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            model: vsim.modelId,
            prompt: 'keep the GPU busy',
            max_tokens: 200,
            ignore_eos: true,
            stream: true,
          }),
        });
        const reader = (res.body as ReadableStream<Uint8Array>).getReader();
        await reader.read();
        const during = await metrics();
        while (!(await reader.read()).done) {}
        return during;
      })(),
    );
    assert.equal(busy, 100, 'mid-request: a step is running');
    // The response ended with the last step, at the clock's present: the next read says idle.
    const res = await driveVirtual(
      clock,
      post(`${vsim.url}/v1/completions`, {
        model: vsim.modelId,
        prompt: 'keep the GPU busy',
        max_tokens: 50,
        ignore_eos: true,
      }),
    );
    assert.equal(res.status, 200);
    const endMs = clock.now();
    assert.ok(endMs > 0);
    assert.equal(await metrics(), 0, 'right after the last step ends (no clock advance)');
    assert.equal(clock.now(), endMs, 'the read itself did not move the clock');
    clock.advanceTo(endMs + 60_000);
    assert.equal(await metrics(), 0);
  });
});
