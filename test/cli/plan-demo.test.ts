/**
 * `servelab plan` and `servelab demo` (both in virtual time) through the CLI.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import '../helpers/node-warnings.js';

const dir = mkdtempSync(join(tmpdir(), 'servelab-plan-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const PLAN = ['plan', '--model', 'llama-3.1-8b', '--gpu', 'h100', '--no-db'];

describe('servelab plan', () => {
  it('gives a byte-identical report for the same seed, outside its environment block', async () => {
    const args = [
      ...PLAN,
      '--rate',
      '20',
      '--requests',
      '60',
      '--input-len',
      'uniform:128-1024',
      '--output-len',
      'uniform:16-128',
      // Fixed output lengths: ignore_eos is sent only when asked.
      '--ignore-eos',
      '--seed',
      '7',
      '--json',
    ];
    const a = memoryIo({}, dir);
    const b = memoryIo({}, dir);
    assert.equal(await main(args, a), 0, a.err());
    assert.equal(await main(args, b), 0, b.err());
    const strip = (s: string) => {
      const r = JSON.parse(s);
      delete r.environment;
      return JSON.stringify(r);
    };
    assert.equal(strip(a.out()), strip(b.out()));
    const other = memoryIo({}, dir);
    assert.equal(await main([...args.slice(0, -3), '--seed', '8', '--json'], other), 0);
    assert.notEqual(strip(other.out()), strip(a.out()), 'a different seed gives a different report');
    const report = JSON.parse(a.out());
    assert.equal(report.schema_version, 1);
    assert.equal(report.summary.requests.measured, 60);
    // --output-len: each request asked for its length and got it (finish_reason length): complete.
    assert.equal(report.summary.finish_reasons.length, 60);
    assert.equal(report.summary.outcomes.length, 0);
    assert.equal(report.summary.outcomes.ok, 60);
  });

  it('matches the calibrated decode time at concurrency 1 (Llama-3.1-8B on H100, ~6.5 ms/token)', async () => {
    const io = memoryIo({}, dir);
    assert.equal(
      await main(
        [
          ...PLAN,
          '--concurrency',
          '1',
          '--requests',
          '8',
          '--input-len',
          '512',
          '--output-len',
          '256',
          '--json',
        ],
        io,
      ),
      0,
    );
    const tpot = JSON.parse(io.out()).summary.tpot_ms.p50;
    assert.ok(tpot > 6.5 * 0.85 && tpot < 6.5 * 1.15, `tpot ${tpot}`);
  });

  it('finds the largest concurrency that meets an SLO, and refuses the search without one', async () => {
    const io = memoryIo({}, dir);
    const args = [
      ...PLAN,
      '--gpu',
      'l4',
      '--model',
      'qwen3-0.6b',
      '--concurrency',
      '1',
      '--requests',
      '64',
      '--input-len',
      '512',
      '--output-len',
      '64',
      '--find-max-concurrency',
      '--slo',
      'ttft_ms=600',
      '--json',
    ];
    assert.equal(await main(args, io), 0, io.err());
    const found = JSON.parse(io.out()).config.find_max_concurrency;
    assert.ok(found.concurrency >= 1, JSON.stringify(found));
    assert.ok(
      found.probes.some((p: { ok: boolean }) => !p.ok),
      'the search went past the limit',
    );
    const bad = memoryIo({}, dir);
    assert.equal(await main([...PLAN, '--find-max-concurrency'], bad), 1);
    assert.match(bad.err(), /--slo/);
  });

  it('diagnoses a cold start on a fresh engine, and not the simultaneous start of a warm one', async () => {
    // The demo's closed loop: 8 users arriving together after 2 warm-up requests. The first wave
    // queues behind its own prefills; the engine was warm, so that is no cold start.
    const shape = ['--concurrency', '8', '--requests', '48', '--input-len', 'uniform:256-1024'];
    const findings = async (name: string, extra: string[]) => {
      const out = join(dir, name);
      const io = memoryIo({}, dir);
      const args = [...PLAN, ...shape, '--output-len', 'uniform:64-192', '--ignore-eos', '--out', out];
      assert.equal(await main([...args, ...extra], io), 0, io.err());
      const d = memoryIo({}, dir);
      await main(['diagnose', join(out, 'report.json'), '--json'], d);
      return (JSON.parse(d.out()).findings as { rule: string }[]).map((f) => f.rule);
    };
    assert.ok(!(await findings('warm-burst', ['--warmup', '2'])).includes('cold_start'));
    assert.ok((await findings('cold', ['--warmup', '0', '--cold-start-ms', '3000'])).includes('cold_start'));
  });

  it('reports an engine that does not fit with a hint', async () => {
    const io = memoryIo({}, dir);
    assert.equal(
      await main(['plan', '--model', 'llama-3.1-70b', '--gpu', 'h100', '--no-db', '--requests', '2'], io),
      1,
    );
    assert.match(io.err(), /--tp 2/);
  });
});

describe('servelab demo', () => {
  it('runs a closed-loop and a Poisson test against the built-in simulator and writes both reports', async () => {
    const io = memoryIo({}, dir);
    const code = await main(['demo', '--json'], io);
    assert.equal(code, 0, io.err());
    const result = JSON.parse(io.out());
    // It says which clock it ran on, and in virtual time a busy machine cannot make it NOT VALID.
    const human = memoryIo({}, dir);
    assert.equal(await main(['demo', '--out', join(dir, 'demo-human')], human), 0, human.err());
    assert.match(human.out(), /clock: virtual/);
    assert.doesNotMatch(human.out(), /NOT VALID/);
    for (const name of ['closed', 'poisson']) {
      const r = result[name];
      assert.equal(r.clock, 'virtual');
      const report = JSON.parse(readFileSync(join(r.out, 'report.json'), 'utf8'));
      assert.deepEqual(report.validity, { valid: true, reasons: [] });
      assert.ok(r.summary.requests.succeeded > 0);
      assert.equal(r.summary.requests.failed, 0);
      // Fixed output lengths (ignore_eos): every request reached its length, none was cut.
      assert.equal(r.summary.outcomes.length, 0);
      assert.ok(existsSync(join(r.out, 'report.json')));
      assert.ok(existsSync(join(r.out, 'vllm.json')));
      const lines = readFileSync(join(r.out, 'requests.jsonl'), 'utf8').trim().split('\n');
      assert.equal(lines.length, r.summary.requests.planned);
      assert.ok(r.monitoring?.server?.generation_tokens_delta > 0, 'the simulator was scraped');
      assert.ok(r.run_id, 'recorded in the store');
    }
    assert.ok(existsSync(join(dir, 'servelab.db')));
    const list = memoryIo({}, dir);
    assert.equal(await main(['runs', 'list'], list), 0);
    assert.match(list.out(), new RegExp(result.closed.run_id));
  });
});
