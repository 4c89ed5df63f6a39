/**
 * `servelab calibrate` in virtual time: runs measured on the simulator with known, non-default
 * constants (a profile passed to the simulator) go through `exp run` and `calibrate`, which must
 * recover every fitted constant within 5%; runs that determine only some constants fit those and
 * keep the priors of the rest, saying why; runs that determine none are refused with a message
 * and a hint, no stack; a plain closed-loop run writes a profile; the written profile drives `plan` and is refused beside a
 * setting it was not fitted for.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import '../helpers/node-warnings.js';

const dir = mkdtempSync(join(tmpdir(), 'servelab-calibrate-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const db = join(dir, 'x.db');

/** The constants the "real engine" runs with: every fitted one away from its default. */
const TRUE = {
  eta_bw: 0.65,
  eta_bw_attn_decode: 0.55,
  eta_gemm: 0.5,
  eta_attn_prefill: 0.35,
  frontend_overhead_ms: 3,
  frontend_chunk_ms: 0.1,
};

const truth = `servelab_profile: 1
fitted_for: {model: qwen3-0.6b, gpu: h100}
constants:
${Object.entries(TRUE)
  .map(([k, v]) => `  ${k}: {value: ${v}}`)
  .join('\n')}
`;

const experiment = (profile: string) => `kind: calibration
name: round-trip
targets:
  engine:
    sim:
      model: qwen3-0.6b
      gpu: h100
      clock: virtual
      profile: ${profile}
generation: {ignore_eos: true}
calibration:
  decode: {input_len: 512, output_len: 128, requests: 2}
  prefill: {input_lens: [128, 1024, 4096], output_len: 8, requests: 2}
  saturation: {concurrency: [4, 16, 32, 64], input_len: 128, output_len: 48}
warmup: 0
`;

let expId = '';
let runIds: { id: string; label: string }[] = [];

before(async () => {
  writeFileSync(join(dir, 'truth.yaml'), truth);
  writeFileSync(join(dir, 'cal.yaml'), experiment(join(dir, 'truth.yaml')));
  const io = memoryIo({}, dir);
  assert.equal(await main(['exp', 'run', 'cal.yaml', '--db', db, '--json'], io), 0, io.err().slice(-2000));
  const res = JSON.parse(io.out());
  expId = res.experiment_id;
  runIds = res.runs.map((r: { run_id: string; label: string }) => ({ id: r.run_id, label: r.label }));
});

describe('servelab calibrate', () => {
  it('recovers non-default constants within 5% from the simulator measured with them', async () => {
    const io = memoryIo({}, dir);
    const code = await main(['calibrate', expId, '--db', db, '--out', 'p.yaml'], io);
    assert.equal(code, 0, io.err());
    const profile = parse(readFileSync(join(dir, 'p.yaml'), 'utf8'));
    assert.equal(profile.fitted_for.model, 'qwen3-0.6b');
    assert.equal(profile.fitted_for.gpu, 'h100');
    for (const [k, v] of Object.entries(TRUE)) {
      const got = profile.constants[k];
      assert.ok(got, `${k} fitted`);
      assert.ok(Math.abs(got.value - v) / v < 0.05, `${k}: ${got.value} vs ${v}`);
      assert.equal(typeof got.stderr, 'number');
    }
    // The console names every constant with its uncertainty, and the residuals per regime.
    for (const c of ['ETA_BW', 'ETA_GEMM_BY_FAMILY', 'FRONTEND_CHUNK_MS'])
      assert.match(io.out(), new RegExp(c));
    assert.match(io.out(), /itl_ms\s+low-load/);
    assert.match(io.out(), /batch_gap_ms\s+saturated/);
  });

  it('without a saturated level fits the low-load terms and keeps the chunk cost at its prior, saying why', async () => {
    const low = runIds.filter((r) => / c=1$/.test(r.label)).map((r) => r.id);
    assert.ok(low.length >= 4);
    const io = memoryIo({}, dir);
    assert.equal(await main(['calibrate', ...low, '--db', db, '--out', 'q.yaml'], io), 0, io.err());
    const profile = parse(readFileSync(join(dir, 'q.yaml'), 'utf8'));
    for (const k of ['eta_bw', 'eta_gemm', 'frontend_overhead_ms'] as const)
      assert.ok(Math.abs(profile.constants[k].value - TRUE[k]) / TRUE[k] < 0.05, k);
    assert.equal(profile.constants.frontend_chunk_ms, undefined);
    assert.match(profile.held.frontend_chunk_ms, /undetermined: no saturated level.*add concurrency levels/);
    assert.match(io.out(), /moved off the defaults: ETA_BW, /);
    assert.doesNotMatch(io.out(), /moved off the defaults:[^\n]*FRONTEND_CHUNK_MS/);
  });

  it('without prefill-length variation keeps the prefill efficiencies at their priors', async () => {
    const one = runIds.filter((r) => /decode|c=(32|64)$/.test(r.label)).map((r) => r.id);
    const io = memoryIo({}, dir);
    assert.equal(await main(['calibrate', ...one, '--db', db, '--out', 'r.yaml'], io), 0, io.err());
    const profile = parse(readFileSync(join(dir, 'r.yaml'), 'utf8'));
    assert.equal(profile.constants.eta_gemm, undefined);
    assert.equal(profile.constants.eta_attn_prefill, undefined);
    assert.ok(Math.abs(profile.constants.eta_bw.value - TRUE.eta_bw) / TRUE.eta_bw < 0.05);
    assert.match(profile.held.eta_gemm, /no prefill-length variation/);
  });

  it('refuses only when nothing can be fitted, naming what is missing', async () => {
    // One loaded level alone: no low-load run, and no lower level to show saturation.
    const one = runIds.filter((r) => /c=16$/.test(r.label)).map((r) => r.id);
    assert.equal(one.length, 1);
    const io = memoryIo({}, dir);
    assert.equal(await main(['calibrate', ...one, '--db', db], io), 1);
    assert.match(io.err(), /FRONTEND_CHUNK_MS\): undetermined: no saturated level/);
    assert.match(io.err(), /ETA_BW\): undetermined/);
    assert.doesNotMatch(io.err(), /at .*\.ts:\d+/);
  });

  it('a plain closed-loop run at concurrency 1 writes a profile and says which terms it moved', async () => {
    const pio = memoryIo({}, dir);
    const planArgs = ['plan', '--model', 'qwen3-0.6b', '--gpu', 'h100', '--profile', join(dir, 'truth.yaml')];
    const load = ['--concurrency', '1', '--requests', '6', '--input-len', '600', '--output-len', '64'];
    assert.equal(
      await main([...planArgs, ...load, '--ignore-eos', '--seed', '2', '--db', db, '--json'], pio),
      0,
      pio.err(),
    );
    const runId = JSON.parse(pio.out()).run_id as string;
    const io = memoryIo({}, dir);
    assert.equal(
      await main(
        ['calibrate', runId, '--db', db, '--model', 'qwen3-0.6b', '--gpu', 'h100', '--out', 's.yaml'],
        io,
      ),
      0,
      io.err(),
    );
    const profile = parse(readFileSync(join(dir, 's.yaml'), 'utf8'));
    assert.ok(Math.abs(profile.constants.eta_bw.value - TRUE.eta_bw) / TRUE.eta_bw < 0.05);
    assert.match(io.out(), /moved off the defaults: [^\n]*ETA_BW/);
    assert.ok(profile.held.eta_gemm && profile.held.frontend_chunk_ms);
  });

  it('a single vllm.json at concurrency 1 writes a profile from its means; one under load is refused with a hint', async () => {
    const out = join(dir, 'vllm-c1');
    const pio = memoryIo({}, dir);
    const planArgs = ['plan', '--model', 'qwen3-0.6b', '--gpu', 'h100', '--profile', join(dir, 'truth.yaml')];
    const load = ['--concurrency', '1', '--requests', '6', '--input-len', '600', '--output-len', '64'];
    assert.equal(
      await main(
        [...planArgs, ...load, '--ignore-eos', '--seed', '3', '--no-db', '--format', 'vllm', '--out', out],
        pio,
      ),
      0,
      pio.err(),
    );
    const io = memoryIo({}, dir);
    const args = [
      'calibrate',
      join(out, 'vllm.json'),
      '--model',
      'qwen3-0.6b',
      '--gpu',
      'h100',
      '--out',
      'v.yaml',
    ];
    assert.equal(await main(args, io), 0, io.err());
    const profile = parse(readFileSync(join(dir, 'v.yaml'), 'utf8'));
    // The mean TPOT is read at the mean context: η_bw within 5%, the overhead from the mean TTFT.
    assert.ok(Math.abs(profile.constants.eta_bw.value - TRUE.eta_bw) / TRUE.eta_bw < 0.05);
    assert.ok(Math.abs(profile.constants.frontend_overhead_ms.value - TRUE.frontend_overhead_ms) < 0.3);
    assert.equal(profile.constants.eta_bw.stderr, null, 'one mean per constant: the error is not estimable');
    assert.match(io.out(), /moved off the defaults: ETA_BW, FRONTEND_OVERHEAD_MS/);
    const loaded = memoryIo({}, process.cwd());
    const fixture = 'test/fixtures/vllm/openai-chat-infqps-concurrency8-Qwen3-8B-20261201-120000.json';
    assert.equal(await main(['calibrate', fixture, '--model', 'qwen3-8b', '--gpu', 'h100'], loaded), 1);
    assert.match(loaded.err(), /max_concurrency 8 mixes queueing/);
    assert.match(loaded.err(), /hint: give one measured with --max-concurrency 1/);
  });

  it('the profile alone selects the simulated configuration; a differing setting is refused', async () => {
    const ok = memoryIo({}, dir);
    assert.equal(
      await main(['plan', '--profile', 'p.yaml', '--requests', '8', '--no-db', '--json'], ok),
      0,
      ok.err(),
    );
    assert.match(ok.err() + ok.out(), /qwen3-0\.6b/);
    const bad = memoryIo({}, dir);
    assert.equal(
      await main(['plan', '--profile', 'p.yaml', '--gpu', 'h200', '--requests', '8', '--no-db'], bad),
      1,
    );
    assert.match(bad.err(), /h200 differs from the h100 the profile/);
  });
});
