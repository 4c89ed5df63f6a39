/**
 * `servelab calibrate` in virtual time: runs measured on the simulator with known, non-default
 * constants (a profile passed to the simulator) go through `exp run` and `calibrate`, which must
 * recover every fitted constant within 5%; runs that cannot determine a constant are refused
 * with a message and a hint, no stack; the written profile drives `plan` and is refused beside a
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

  it('refuses runs without a saturated level, naming the undetermined constant', async () => {
    const low = runIds.filter((r) => / c=1$/.test(r.label)).map((r) => r.id);
    assert.ok(low.length >= 4);
    const io = memoryIo({}, dir);
    assert.equal(await main(['calibrate', ...low, '--db', db, '--out', 'q.yaml'], io), 1);
    assert.match(io.err(), /FRONTEND_CHUNK_MS\): undetermined: no saturated level/);
    assert.match(io.err(), /hint: add concurrency levels/);
    assert.doesNotMatch(io.err(), /at .*\.ts:\d+/);
  });

  it('refuses runs without prefill-length variation', async () => {
    const one = runIds.filter((r) => /decode|c=(32|64)$/.test(r.label)).map((r) => r.id);
    const io = memoryIo({}, dir);
    assert.equal(await main(['calibrate', ...one, '--db', db], io), 1);
    assert.match(io.err(), /ETA_ATTN_PREFILL\): undetermined: no prefill-length variation/);
    assert.doesNotMatch(io.err(), /FRONTEND_CHUNK_MS/);
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
