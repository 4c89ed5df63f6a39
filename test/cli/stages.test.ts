/**
 * Issue 26 item 4: the workloads of public measurements round-trip through `servelab plan`
 * (virtual time, the in-process simulator): load stages that each start after the previous one
 * drained (inference-perf's multi-stage load), and shared-prefix groups cycling through G × M
 * fixed prompts (inference-perf's `shared_prefix` data), which the simulator's prefix cache shows.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { StageSummary, Summary } from '../../src/analysis/summary.js';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import type { RequestRecord } from '../../src/record/types.js';
import { startSimServer } from '../../src/sim/server/index.js';

/** What these tests read of report.json. */
interface Report {
  config: { target: { endpoint: string } };
  summary: Summary & { stages: StageSummary[] };
  window: { start_ms: number };
  monitoring: { server_window: { prefix_hit_rate: number } };
}

import '../helpers/node-warnings.js';

const PLAN = ['plan', '--model', 'qwen3-0.6b', '--gpu', 'h100', '--no-db', '--seed', '1'];
const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function plan(args: string[], head = PLAN): Promise<{ report: Report; records: RequestRecord[] }> {
  const out = mkdtempSync(join(tmpdir(), 'sl-stages-'));
  dirs.push(out);
  const io = memoryIo({}, process.cwd());
  const code = await main([...head, ...args, '--out', out, '--json'], io);
  assert.equal(code, 0, io.err());
  const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report;
  const records = readFileSync(join(out, 'requests.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as RequestRecord)
    .filter((r) => r.phase === 'measure')
    .sort((a, b) => a.index - b.index);
  return { report, records };
}

describe('servelab plan --stages', () => {
  it('sends int(rate × duration) requests per stage, each stage after the previous drained plus the pause', async () => {
    const { report, records } = await plan([
      '--endpoint',
      'completions',
      '--stages',
      '2x10,4.5x10',
      '--stage-pause',
      '5',
      '--arrival',
      'constant',
      '--input-len',
      '300',
      '--output-len',
      '16',
    ]);
    const s = report.summary;
    assert.equal(s.requests.planned, 65);
    assert.equal(s.requests.succeeded, 65);
    assert.deepEqual(
      s.stages.map((st) => [st.planned, st.succeeded]),
      [
        [20, 20],
        [45, 45],
      ],
    );
    assert.ok((s.stages[1].ttft_ms.mean ?? 0) > 0 && s.stages[1].e2e_ms.n === 45);
    assert.equal(records.length, 65);
    // Each record carries its stage, and the records match the stages' request counts.
    assert.deepEqual(
      [0, 1].map((st) => records.filter((r) => r.stage === st).length),
      [20, 45],
    );
    // The achieved rate per stage is the stage's evenly spaced send rate.
    assert.ok(Math.abs((s.stages[0].achieved_rate_rps ?? 0) - 2) < 1e-6, `${s.stages[0].achieved_rate_rps}`);
    assert.ok(
      Math.abs((s.stages[1].achieved_rate_rps ?? 0) - 4.5) < 1e-6,
      `${s.stages[1].achieved_rate_rps}`,
    );
    // Stage 0: evenly spaced, the first one gap after the start, the last at its end (10 s).
    const t0 = report.window.start_ms;
    assert.equal(Math.round(records[0].planned_at_ms! - t0), 500);
    assert.equal(Math.round(records[19].planned_at_ms! - t0), 10_000);
    // Stage 1 starts when stage 0's last response ended, plus 5 s, then one gap (1/4.5 s).
    const drained = Math.max(...records.slice(0, 20).map((r) => r.end_at_ms!));
    assert.ok(drained > t0 + 10_000);
    assert.ok(Math.abs(records[20].planned_at_ms! - (drained + 5000 + 1000 / 4.5)) < 1e-6);
    assert.ok(Math.abs(records[64].planned_at_ms! - (drained + 5000 + 10_000)) < 1e-6);
  });

  it('report shows a stored staged run per stage', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sl-stages-db-'));
    dirs.push(dir);
    const db = join(dir, 'servelab.db');
    const head = PLAN.filter((a) => a !== '--no-db');
    const io = memoryIo({}, process.cwd());
    const args = ['--stages', '2x3,4x3', '--input-len', '100', '--output-len', '8', '--db', db];
    assert.equal(await main([...head, ...args], io), 0, io.err());
    const id = /run ([a-z0-9]{6,})/.exec(io.out() + io.err())?.[1];
    assert.ok(id, io.out());
    const rep = memoryIo({}, process.cwd());
    assert.equal(await main(['report', id, '--db', db], rep), 0, rep.err());
    const text = rep.out();
    assert.match(text, new RegExp(`load stages \\[${id}\\]`));
    assert.match(text, /ttft_ms p50\s+p99\s+e2e_ms p50\s+p99/);
    assert.match(text, /\n\s+1\s+6\s+6\s/);
    assert.match(text, /\n\s+2\s+12\s+12\s/);
  });

  it('refuses --stages with a rate or a request count, and a malformed stage, with hints', async () => {
    for (const args of [
      ['--stages', '2x10', '--rate', '3'],
      ['--stages', '2x10', '--requests', '3'],
      ['--stages', '2x'],
    ]) {
      const io = memoryIo({}, process.cwd());
      assert.notEqual(await main([...PLAN, ...args], io), 0);
      assert.match(io.err(), /--stages/);
      assert.match(io.err(), /e\.g\. --stages/);
      assert.doesNotMatch(io.err(), /\n\s+at /);
    }
  });
});

describe('servelab plan --prompts-per-group', () => {
  const shared = ['--shared-prefix-len', '200', '--num-prefix-groups', '2', '--input-len', 'uniform:230-330'];
  it('cycles through groups × prompts-per-group fixed prompts, and the prefix cache shows it', async () => {
    const load = ['--rate', '4', '--requests', '48', '--output-len', '8'];
    const cycling = await plan([...load, ...shared, '--prompts-per-group', '3']);
    const lens = cycling.records.map((r) => r.input_len);
    // Six distinct prompts; request n sends prompt n mod 6.
    for (let n = 6; n < lens.length; n++) assert.equal(lens[n], lens[n - 6], `request ${n}`);
    assert.ok(new Set(lens.slice(0, 6)).size > 1, 'the six prompts are not all one');
    const fresh = await plan([...load, ...shared]);
    const rate = (r: { report: Report }) => r.report.monitoring.server_window.prefix_hit_rate as number;
    // Every prompt after the first six is a whole-prompt hit, against the group prefix alone.
    assert.ok(rate(cycling) > 0.8, `cycling hit rate ${rate(cycling)}`);
    assert.ok(rate(cycling) > rate(fresh) + 0.1, `cycling ${rate(cycling)} vs fresh ${rate(fresh)}`);
  });

  it('needs a shared prefix', async () => {
    const io = memoryIo({}, process.cwd());
    assert.notEqual(
      await main([...PLAN, '--prompts-per-group', '3', '--input-len', '100', '--requests', '4'], io),
      0,
    );
    assert.match(io.err(), /--prompts-per-group/);
  });
});

describe('servelab plan --config inference-perf.yaml', () => {
  const yaml = (data: string) =>
    [
      'api: {type: completion, streaming: true}',
      data,
      'load:',
      '  type: constant',
      '  interval: 2',
      '  stages: [{rate: 2, duration: 6}, {rate: 3, duration: 6}]',
      'server: {type: vllm, model_name: qwen3-0.6b, base_url: "http://0.0.0.0:8000"}',
    ].join('\n');
  const file = (text: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'sl-ip-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'config.yml'), text);
    return join(dir, 'config.yml');
  };
  const sharedPrefix =
    'data: {type: shared_prefix, shared_prefix: {num_groups: 2, num_prompts_per_group: 3, system_prompt_len: 200, question_len: 50, output_len: 16}}';

  it("reads the api type, the stages and the shared_prefix data as servelab's flags", async () => {
    const { report, records } = await plan(['--config', file(yaml(sharedPrefix))]);
    assert.equal(report.config.target.endpoint, 'completions');
    assert.deepEqual(
      report.summary.stages.map((st) => st.succeeded),
      [12, 18],
    );
    assert.equal(report.summary.input_tokens.mean, 250);
    assert.equal(report.summary.output_tokens.mean, 16);
    assert.equal(records.length, 30);
    // 6 prompts cycling over 30 requests: most of every prompt is a cache hit.
    assert.ok(report.monitoring.server_window.prefix_hit_rate > 0.8);
  });

  it('a flag given wins over the file', async () => {
    const { report } = await plan(['--config', file(yaml(sharedPrefix)), '--output-len', '8']);
    assert.equal(report.summary.output_tokens.mean, 8);
  });

  it('refuses a data type it cannot make, and a missing file, with hints', async () => {
    for (const args of [
      ['--config', file(yaml('data: {type: shareGPT}'))],
      ['--config', join(tmpdir(), 'no-such-inference-perf.yml')],
    ]) {
      const io = memoryIo({}, process.cwd());
      assert.notEqual(await main([...PLAN, ...args], io), 0);
      assert.match(io.err(), /config|data\.type/);
      assert.match(io.err(), /hint|e\.g\.|use data\.type/);
      assert.doesNotMatch(io.err(), /\n\s+at /);
    }
  });
});

describe('servelab run --stages --prompts-per-group against servelab sim (HTTP)', () => {
  it('the records match the stages’ request counts, and the cycling prompts show in the prefix-cache hit rate', async () => {
    const sim = await startSimServer(
      { model: 'qwen3-0.6b', gpu: 'h100', port: 0, timeScale: 10 },
      { log: () => {} },
    );
    try {
      const head = ['run', '--url', sim.url, '--model', 'qwen3-0.6b', '--no-db', '--seed', '2'];
      const { report, records } = await plan(
        [
          '--endpoint',
          'completions',
          '--stages',
          '10x1,20x1',
          '--stage-pause',
          '0.2',
          '--arrival',
          'constant',
          '--shared-prefix-len',
          '200',
          '--num-prefix-groups',
          '2',
          '--prompts-per-group',
          '3',
          '--input-len',
          '250',
          '--output-len',
          '8',
        ],
        head,
      );
      assert.equal(report.config.target.endpoint, 'completions');
      assert.deepEqual(
        [0, 1].map((st) => records.filter((r) => r.stage === st && r.outcome === 'ok').length),
        [10, 20],
      );
      assert.deepEqual(
        report.summary.stages.map((st) => [st.planned, st.succeeded]),
        [
          [10, 10],
          [20, 20],
        ],
      );
      // Stage 1 starts after stage 0 drained.
      const drained = Math.max(...records.filter((r) => r.stage === 0).map((r) => r.end_at_ms!));
      assert.ok(Math.min(...records.filter((r) => r.stage === 1).map((r) => r.sent_at_ms!)) > drained);
      // 6 prompts cycling over 30 requests: most prompt tokens are prefix-cache hits.
      assert.ok(
        report.monitoring.server_window.prefix_hit_rate > 0.7,
        `hit rate ${report.monitoring.server_window.prefix_hit_rate}`,
      );
    } finally {
      await sim.close();
    }
  });
});
