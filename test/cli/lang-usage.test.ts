/**
 * `--lang zh-CN` on bad command lines: the problems and hints the flag parsers write
 * (src/cli/options.ts, run's target flags, the simulator's rules, an experiment file's
 * problems) come out in Chinese, with no catalogue key or `{placeholder}` left in them. Run as a
 * real process through test/helpers/cli-entry.ts, so what is checked is what a user reads.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { cliProcess } from '../helpers/cli-process.js';

const dir = mkdtempSync(join(tmpdir(), 'servelab-lang-usage-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const cli = (args: string[]) => cliProcess(args);

/** A message key (`cli.num.not_number`) or an unfilled placeholder means a lookup went wrong. */
function assertNoKeys(text: string): void {
  assert.doesNotMatch(text, /\b(cli|exp|sim|common)\.[a-z_]+\.[a-z_.]+/, text);
  assert.doesNotMatch(text, /\{[a-z_]+\}/, text);
}

describe('usage errors with --lang zh-CN', () => {
  it('plan: number and range problems of the shared flags, with their hints', async () => {
    const args = ['plan', '--requests', 'x', '--concurrency', '0', '--top-p', '0'];
    const zh = await cli([...args, '--lang', 'zh-CN']);
    assert.equal(zh.code, 1, zh.err);
    assert.match(zh.err, /^错误：用法不正确$/m);
    assert.match(zh.err, /^ {2}- --requests: 应为数字，实际为 "x"\n {6}提示：例如 --requests 8$/m);
    assert.match(zh.err, /^ {2}- --concurrency: 不能小于 1，实际为 0$/m);
    assert.match(zh.err, /^ {2}- --top-p: 必须大于 0，实际为 0$/m);
    // A simulator rule the engine checks again (in English) is reported once, in Chinese.
    const steps = await cli([
      'plan',
      '--requests',
      '4',
      '--num-scheduler-steps',
      '4',
      '--duration',
      '5',
      '--lang',
      'zh-CN',
    ]);
    assert.equal(steps.code, 1, steps.err);
    assert.match(steps.err, /^ {2}- --num-scheduler-steps: 多步调度是 vLLM v0 的功能；--engine 是 vllm-v1$/m);
    assert.match(steps.err, /^ {2}- --duration: plan 在闭环中按请求数运行$/m);
    assert.equal(steps.err.match(/--num-scheduler-steps:/g)?.length, 1, steps.err);
    assertNoKeys(steps.err);
    assert.doesNotMatch(zh.err, /expected|must be|e\.g\./);
    assertNoKeys(zh.err);
    // The same command line in English reads as it always has.
    const en = await cli(args);
    assert.equal(en.code, 1, en.err);
    assert.match(en.err, /^ {2}- --requests: expected a number, got "x"\n {6}hint: e\.g\. --requests 8$/m);
    assert.match(en.err, /^ {2}- --concurrency: must be at least 1, got 0$/m);
  });

  it('plan: the notes on vLLM names read as servelab flags', async () => {
    const r = await cli([
      'plan',
      '--num-prompts',
      '4',
      '--random-input-len',
      '64',
      '--random-output-len',
      '8',
      '--random-range-ratio',
      '0.1',
      '--lang',
      'zh-CN',
    ]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /^注意：--num-prompts 按 servelab 的 --requests 理解$/m);
    assert.match(r.err, /^注意：--random-range-ratio 0\.1：--input-len uniform:57-71$/m);
    assert.doesNotMatch(r.err, /^note:/m);
    assertNoKeys(r.err);
  });

  it('run: the target flags and a vLLM name given with the flag it renames', async () => {
    const r = await cli([
      'run',
      '--url',
      'ftp://h',
      '--num-prompts',
      '8',
      '--requests',
      '8',
      '--header',
      'bad',
      '--dataset-name',
      'bogus',
      '--lang',
      'zh-CN',
    ]);
    assert.equal(r.code, 1, r.err);
    assert.match(r.err, /^ {2}- --url: 不是 http\(s\) URL："ftp:\/\/h"$/m);
    assert.match(r.err, /^ {2}- --header: 应为 NAME:VALUE，实际为 "bad"$/m);
    assert.match(r.err, /--num-prompts 是 vLLM 对 --requests 的叫法，两者不能同时给出/);
    assert.match(r.err, /^ {2}- --dataset-name: servelab 不支持 vLLM 的 "bogus" 数据集$/m);
    assert.doesNotMatch(r.err, /expected|both are given|does not read/);
    assertNoKeys(r.err);
  });

  it('sim: a rule between simulator flags', async () => {
    const r = await cli(['sim', '--fault-rate', '0.1', '--lang', 'zh-CN']);
    assert.equal(r.code, 1, r.err);
    assert.match(
      r.err,
      /^ {2}- --fault-rate: 故障率需要配合一个故障列表\n {6}提示：例如加上 --faults http500,disconnect,garble$/m,
    );
    assertNoKeys(r.err);
  });

  it('exp run: an experiment file’s unknown kind and field, and a missing file', async () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'kind: sweep\nname: x\nbogus: 1\n');
    const r = await cli(['exp', 'run', file, '--no-db', '--lang', 'zh-CN']);
    assert.equal(r.code, 1, r.err);
    assert.match(r.err, /: kind: 未知的实验类型 "sweep"（第 1 行）\n {6}提示：可用的 kind：baseline, /);
    assert.match(r.err, /: bogus: 未知字段（第 3 行）\n {6}提示：此处可用的字段：kind, name, /);
    assertNoKeys(r.err);
    const missing = await cli(['exp', 'run', join(dir, 'none.yaml'), '--lang', 'zh-CN']);
    assert.equal(missing.code, 1, missing.err);
    assert.match(
      missing.err,
      /none\.yaml: 文件不存在\n {6}提示：`servelab exp init KIND FILE\.yaml` 会写出一个模板/,
    );
    assertNoKeys(missing.err);
  });
});

describe('usage errors raised inside commands, with --lang zh-CN', () => {
  it('exp init: a lesson given the wrong number of --url, --url on a kind, an unknown kind', async () => {
    const two = await cli([
      'exp',
      'init',
      'lesson-two-engines',
      '--url',
      'http://a:8000/v1',
      '--lang',
      'zh-CN',
    ]);
    assert.equal(two.code, 1, two.err);
    assert.match(two.err, /^ {2}- --url: lesson-two-engines 比较两个引擎：需要 2 个 --url，收到 1 个$/m);
    const kind = await cli(['exp', 'init', 'baseline', '--url', 'http://a:8000/v1', '--lang', 'zh-CN']);
    assert.equal(kind.code, 1, kind.err);
    assert.match(
      kind.err,
      /^ {2}- --url: --url 只用于课程，不用于 baseline\n {6}提示：请改为编辑模板里的 url 目标$/m,
    );
    for (const r of [two, kind]) {
      assert.doesNotMatch(r.err, /compares|takes|instead|give one/);
      assertNoKeys(r.err);
    }
  });
});

describe('exp run output with --lang zh-CN', () => {
  it('a sweep: progress lines, table headings, verdicts and the knee line in Chinese', async () => {
    const file = join(dir, 'sweep.yaml');
    writeFileSync(
      file,
      `kind: concurrency-sweep
name: zh
targets:
  engine:
    sim: {model: qwen3-0.6b, gpu: h100, clock: virtual}
workload: {input_len: 128, output_len: 16}
load: {concurrency: [1, 4], requests: 8}
warmup: 0
`,
    );
    const r = await cli(['exp', 'run', file, '--no-db', '--lang', 'zh-CN']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /^目标 engine：模拟器 qwen3-0\.6b，运行在 h100 上（虚拟时钟）$/m);
    assert.match(r.err, /^ {2}engine c=1：[\d.]+ tok\/s，p99 TTFT [\d.]+ ms，缓存命中 [\d.]+%，有效$/m);
    // The answer's table leads; the sweep's own table after it repeats no column of it.
    assert.match(
      r.out,
      /^ {2}并发 +req\/s +输出 tok\/s +TTFT p99 ms +E2E p99 ms +错误率 % +结论 +拐点 +停止$/m,
    );
    assert.match(r.out, /^ {2}1 .* 有效 *$/m);
    assert.match(r.out, /^并发 +服务端 tok\/s +TTFT p50\/p95 ms .* 缓存命中$/m);
    assert.match(r.out, /^拐点：/m);
    assert.match(r.out, /^各次运行：- \(engine c=1: 有效\), - \(engine c=4: 有效\)$/m);
    assert.doesNotMatch(r.out + r.err, /\b(valid|verdict|knee|target|errors)\b/);
    assertNoKeys(r.out + r.err);
    // English, as before.
    const en = await cli(['exp', 'run', file, '--no-db']);
    assert.equal(en.code, 0, en.err);
    assert.match(
      en.out,
      /^ {2}concurrency +req\/s +out tok\/s +TTFT p99 ms +E2E p99 ms +errors % +verdict +knee +stop$/m,
    );
    assert.match(en.err, /^ {2}engine c=1: [\d.]+ tok\/s, p99 TTFT [\d.]+ ms, cache hits [\d.]+%, valid$/m);
  });
});
