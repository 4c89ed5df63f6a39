/**
 * Speculative decoding end to end, through the CLI in-process:
 * - the simulator serving with an eagle `--speculative-config` and a set acceptance rate exposes
 *   vLLM's spec-decode counters (names and labels of `vllm/v1/spec_decode/metrics.py`) on
 *   `/metrics`, and `run` against it (over 20,000 proposed tokens) reports that acceptance rate
 *   within 2 points, read through the metric map;
 * - `plan` in virtual time: speculation lowers TPOT at concurrency 1, and at a batch large enough
 *   to make the step compute-bound the gain is gone or reversed, and the console says why;
 * - `plan` with ngram on its synthetic prompts (random words: no text to match) drafts at the
 *   published prior and says so: faster at concurrency 1, slower once compute-bound; a set
 *   `acceptance_rate` replaces the prior;
 * - ngram on a text prompt that never repeats drafts nothing, and says so (vLLM's ngram finds
 *   no repeated 5-gram in such text).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { startSimServer } from '../../src/sim/server/index.js';
import '../helpers/node-warnings.js';

const dir = mkdtempSync(join(tmpdir(), 'servelab-spec-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('speculative decoding through the CLI', () => {
  it('sim exposes the spec-decode counters; run reports the set acceptance rate within 2 points', async () => {
    const sim = await startSimServer(
      {
        model: 'llama-3.1-8b',
        gpu: 'h100',
        port: 0,
        timeScale: 50,
        speculativeConfig: { method: 'eagle', num_speculative_tokens: 3, acceptance_rate: 0.7 } as never,
      },
      { log: () => {} },
    );
    try {
      const text = await (await fetch(`${sim.url}/metrics`)).text();
      for (const name of [
        'vllm:spec_decode_num_drafts_total',
        'vllm:spec_decode_num_draft_tokens_total',
        'vllm:spec_decode_num_accepted_tokens_total',
      ])
        assert.match(text, new RegExp(`^${name}\\{model_name="[^"]+"\\} 0$`, 'm'), name);
      for (const pos of [0, 1, 2])
        assert.match(
          text,
          new RegExp(
            `^vllm:spec_decode_num_accepted_tokens_per_pos_total\\{model_name="[^"]+",position="${pos}"\\} 0$`,
            'm',
          ),
        );
      const io = memoryIo({}, dir);
      const code = await main(
        [
          'run',
          '--url',
          `${sim.url}/v1`,
          '--concurrency',
          '32',
          '--requests',
          '120',
          '--input-len',
          '64',
          '--output-len',
          '256',
          '--ignore-eos',
          '--no-db',
          '--json',
        ],
        io,
      );
      assert.equal(code, 0, io.err());
      const report = JSON.parse(io.out());
      const s = report.speculative;
      assert.equal(s.source, 'metrics');
      assert.ok(s.draft_tokens >= 20_000, `${s.draft_tokens} proposed tokens`);
      assert.ok(Math.abs(s.acceptance_rate - 0.7) < 0.02, `acceptance ${s.acceptance_rate}`);
      assert.ok(Math.abs(s.mean_accepted_length_tokens - (1 + s.accepted_tokens / s.drafts)) < 1e-9);
      assert.equal(s.reason, null);
      // The counters after the run agree with what the report took from them.
      const after = await (await fetch(`${sim.url}/metrics`)).text();
      const read = (n: string) => Number(new RegExp(`^${n}\\{[^}]*\\} (\\S+)$`, 'm').exec(after)?.[1]);
      assert.equal(read('vllm:spec_decode_num_draft_tokens_total'), s.draft_tokens);
    } finally {
      await sim.close();
    }
  });

  /** What these tests read of plan's report.json. */
  interface PlanReport {
    summary: { tpot_ms: { p50: number } };
    speculative: { acceptance_rate: number; ngram_prior?: { acceptance_per_position: number } };
  }
  const EAGLE = '{"method":"eagle","num_speculative_tokens":3}';
  const NGRAM = '{"method":"ngram","num_speculative_tokens":4}';

  /** TPOT p50 of a decode-heavy plan at `c`, without speculation or with `spec` (default eagle). */
  async function tpot(
    c: number,
    spec: boolean | string,
  ): Promise<{ tpot: number; out: string; report: PlanReport }> {
    const io = memoryIo({}, dir);
    const args = [
      'plan',
      '--model',
      'qwen3-8b',
      '--gpu',
      'h100',
      '--no-db',
      '--max-concurrency',
      String(c),
      '--requests',
      String(Math.max(c, 16)),
      '--input-len',
      '128',
      '--output-len',
      '256',
      '--ignore-eos',
      ...(spec ? ['--speculative-config', spec === true ? EAGLE : spec] : []),
      '--json',
    ];
    assert.equal(await main(args, io), 0, io.err());
    const report = JSON.parse(io.out().slice(io.out().indexOf('{'))) as PlanReport;
    return { tpot: report.summary.tpot_ms.p50, out: io.out() + io.err(), report };
  }

  it('plan: faster at concurrency 1, the gain gone or reversed once the step is compute-bound, and says why', async () => {
    const off1 = await tpot(1, false);
    const on1 = await tpot(1, true);
    assert.ok(on1.tpot < off1.tpot * 0.8, `c=1: ${on1.tpot} vs ${off1.tpot}`);
    const offBig = await tpot(512, false);
    const onBig = await tpot(512, true);
    assert.ok(onBig.tpot >= offBig.tpot * 0.98, `c=512: ${onBig.tpot} vs ${offBig.tpot}`);
    assert.match(
      onBig.out,
      /a cost once a large batch makes the step compute-bound, where the speed-up shrinks and then reverses/,
    );
  });

  it('plan --speculative-config ngram at concurrency 1 on prompts that repeat: lower TPOT than without', async () => {
    const code = 'def add(a, b):\n    return a + b\n\ndef sub(a, b):\n    return a - b\n\n';
    const file = join(dir, 'repeating.jsonl');
    writeFileSync(
      file,
      `${JSON.stringify({ prompt: `Rename add to plus and print the file back:\n${code.repeat(12)}`, output_len: 64 })}\n`,
    );
    const tpotOf = async (spec: boolean) => {
      const io = memoryIo({}, dir);
      const args = [
        'plan',
        '--no-db',
        '--max-concurrency',
        '1',
        '--requests',
        '4',
        '--prompts',
        file,
        '--ignore-eos',
        '--json',
      ];
      if (spec) args.push('--speculative-config', '{"method":"ngram","num_speculative_tokens":4}');
      assert.equal(await main(args, io), 0, io.err());
      const out = io.out();
      return { report: JSON.parse(out.slice(out.indexOf('{'))), out: out + io.err() };
    };
    const off = await tpotOf(false);
    const on = await tpotOf(true);
    assert.ok(
      on.report.summary.tpot_ms.p50 < off.report.summary.tpot_ms.p50,
      `${on.report.summary.tpot_ms.p50} < ${off.report.summary.tpot_ms.p50}`,
    );
    assert.ok(
      on.report.speculative.acceptance_rate > 0.5,
      `ngram acceptance ${on.report.speculative.acceptance_rate}`,
    );
    assert.match(on.out, /speculative decoding \(engine \/metrics\): acceptance rate/);
  });

  it('plan ngram on synthetic prompts: the prior, faster at concurrency 1, slower once compute-bound, and says why', async () => {
    const off1 = await tpot(1, false);
    const on1 = await tpot(1, NGRAM);
    assert.ok(on1.tpot < off1.tpot * 0.8, `c=1: ${on1.tpot} vs ${off1.tpot}`);
    // The prior (0.42 per position) is what was drafted at, and the summary says so and why.
    const rate = on1.report.speculative.acceptance_rate;
    assert.ok(Math.abs(rate - 0.175) < 0.03, `acceptance ${rate}`);
    assert.deepEqual(on1.report.speculative.ngram_prior?.acceptance_per_position, 0.42);
    assert.match(
      on1.out,
      /ngram acceptance assumed 0\.42 per position \(synthetic prompts carry no text to match; source: .*Spec-Bench.*\); give a dataset with text/,
    );
    const offBig = await tpot(256, false);
    const onBig = await tpot(256, NGRAM);
    assert.ok(onBig.tpot > offBig.tpot, `c=256: ${onBig.tpot} vs ${offBig.tpot}`);
    assert.match(onBig.out, /each verify pass ran 4\.\d+ positions per request for 1\.\d+ kept/);
    assert.match(onBig.out, /a cost once a large batch makes the step compute-bound/);
  });

  it('report of a stored ngram plan run says what was assumed and why a verify pass costs what it does', async () => {
    const db = join(dir, 'spec.db');
    const io = memoryIo({}, dir);
    const args = ['plan', '--db', db, '--concurrency', '1', '--requests', '4', '--input-len', '128'];
    assert.equal(
      await main([...args, '--output-len', '64', '--speculative-config', NGRAM, '--json'], io),
      0,
      io.err(),
    );
    const id = JSON.parse(io.out().slice(io.out().indexOf('{'))).run_id as string;
    for (const [lang, why, assumed] of [
      [
        'en',
        /each verify pass ran 4\.\d+ positions per request/,
        /ngram acceptance assumed 0\.42 per position/,
      ],
      ['zh-CN', /每次验证为每个请求计算 4\.\d+ 个位置/, /ngram 的接受率按每个位置 0\.42 假设/],
    ] as const) {
      const rio = memoryIo({}, dir);
      assert.equal(await main(['report', id, '--db', db, '--lang', lang], rio), 0, rio.err());
      assert.match(rio.out(), why, lang);
      assert.match(rio.out(), assumed, lang);
    }
  });

  it('plan ngram with acceptance_rate set: the rate replaces the prior, and nothing is said to be assumed', async () => {
    const set = await tpot(1, '{"method":"ngram","num_speculative_tokens":4,"acceptance_rate":0.5}');
    assert.ok(
      Math.abs(set.report.speculative.acceptance_rate - 0.5) < 0.05,
      `${set.report.speculative.acceptance_rate}`,
    );
    assert.equal(set.report.speculative.ngram_prior, undefined);
    assert.doesNotMatch(set.out, /ngram acceptance assumed/);
  });

  it('plan ngram on a text prompt that never repeats drafts nothing and says why', async () => {
    const file = join(dir, 'distinct.jsonl');
    const words = Array.from({ length: 200 }, (_, i) => `w${i.toString(36)}x`).join(' ');
    writeFileSync(file, `${JSON.stringify({ prompt: words, output_len: 32 })}\n`);
    const io = memoryIo({}, dir);
    const code = await main(
      [
        'plan',
        '--no-db',
        '--max-concurrency',
        '1',
        '--requests',
        '4',
        '--prompts',
        file,
        '--speculative-config',
        NGRAM,
      ],
      io,
    );
    assert.equal(code, 0, io.err());
    assert.match(io.out(), /nothing was drafted in this run \(ngram: the prompts' n-grams did not repeat\)/);
    assert.doesNotMatch(io.out(), /ngram acceptance assumed/);
  });
});
