/**
 * `--lang` on the commands that print prose: `run`'s summary and verdict, `plan`'s, `check`'s
 * report and hints, and the usage-error framing, in Chinese; English stays the default when no
 * locale says otherwise. Against the simulator over loopback (port 0).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { type SimServer, startSimServer } from '../../src/sim/server/index.js';
import '../helpers/node-warnings.js';

const dir = mkdtempSync(join(tmpdir(), 'servelab-cli-lang-'));
let sim: SimServer;
const RUN = ['--requests', '8', '--concurrency', '2', '--prompt', 'hello', '--output-len', '8', '--no-db'];

before(async () => {
  sim = await startSimServer({ model: 'llama-3.1-8b', gpu: 'h100', port: 0, timeScale: 50 });
});
after(async () => {
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('--lang zh-CN', () => {
  it('run: the summary headings, the verdict and the closing lines are Chinese; metric names stay', async () => {
    const io = memoryIo({}, dir);
    const code = await main(['run', '--url', `${sim.url}/v1`, ...RUN, '--no-scrape', '--lang', 'zh-CN'], io);
    assert.equal(code, 0, io.err());
    const out = io.out();
    assert.match(out, /^servelab run：.*，模型 /m);
    for (const heading of ['请求', '延迟（ms）', '吞吐量', '利特尔定律', '客户端'])
      assert.match(out, new RegExp(`^${heading}$`, 'm'), heading);
    assert.match(out, /^ {2}ttft_ms /m);
    assert.match(out, /^结论：/m);
    assert.doesNotMatch(out, /^(Requests|Throughput|verdict:)/m);
  });

  it('plan: the same summary, the error bands and the verdict in Chinese', async () => {
    const io = memoryIo({}, dir);
    assert.equal(await main(['plan', ...RUN, '--lang', 'zh-CN'], io), 0, io.err());
    assert.match(io.out(), /^servelab plan：.*（虚拟时间，模拟了 [\d.]+ 秒）/m);
    assert.match(io.out(), /^模拟器误差区间（80%/m);
    assert.match(io.out(), /^  TTFT p99 [\d.]+ ms，80% 区间 [\d.]+–[\d.]+ ms$/m);
    // The summary's warnings too (8 requests: every p99 rests on fewer than 100 samples).
    assert.match(io.out(), /^ {2}! ttft_ms \(n=8\).* 的 p99 基于不到 100 个样本：请视为不稳定$/m);
    assert.match(io.out(), /^结论：/m);
  });

  it('check: its report, problems and hints in Chinese', async () => {
    const io = memoryIo({}, dir);
    assert.equal(
      await main(['check', '--url', `${sim.url}/v1`, '--model', 'nope', '--lang', 'zh-CN'], io),
      3,
      io.err(),
    );
    const out = io.out();
    assert.match(out, /^ {2}可访问 +是$/m);
    assert.match(out, /^ {2}- 这里不提供模型 nope\n {4}提示：提供的模型：llama-3\.1-8b/m);
    assert.match(out, /^结果：失败（\d+ 个问题）$/m);
  });

  it('usage errors: the framing, the flags’ problems and hints in the chosen language', async () => {
    const zh = memoryIo({}, dir);
    assert.equal(await main(['plan', '--requests', '8', '--lang', 'zh-CN', '--bogus'], zh), 1);
    assert.match(zh.err(), /^错误：未知选项\n {2}- --bogus\n {2}提示：参见 'servelab plan --help'/);
    const bad = memoryIo({}, dir);
    assert.equal(await main(['plan', '--requests', '8', '--lang', 'fr'], bad), 1);
    assert.match(
      bad.err(),
      /^error: invalid usage\n {2}- --lang: unknown language "fr"\n {6}hint: use --lang en/,
    );
    // The locale picks the language when --lang is absent; C (or none) is English.
    const loc = memoryIo({ LANG: 'zh_CN.UTF-8' }, dir);
    assert.equal(await main(['plan', '--requests', 'x'], loc), 1);
    assert.match(loc.err(), /^错误：用法不正确\n/);
    const c = memoryIo({ LANG: 'C' }, dir);
    assert.equal(await main(['plan', '--requests', 'x'], c), 1);
    assert.match(c.err(), /^error: invalid usage\n/);
  });
});
