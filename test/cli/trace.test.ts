/**
 * `servelab trace stats` through the CLI (text, --json, --html in headless chromium), and bad
 * trace files through `plan`: a usage error naming the line and the problem, exit code 1.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { chromiumSkip, launchChromium } from '../helpers/browser.js';
import '../helpers/node-warnings.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'traces');
const dir = mkdtempSync(join(tmpdir(), 'servelab-trace-cli-'));
after(() => rmSync(dir, { recursive: true, force: true }));

async function cli(args: string[], env: Record<string, string> = {}) {
  const io = memoryIo(env, dir);
  const code = await main(args, io);
  return { code, out: io.out(), err: io.err() };
}

describe('servelab trace stats', () => {
  it('prints rate, lengths, burstiness and the prefix-sharing ratio of a Mooncake trace', async () => {
    const r = await cli(['trace', 'stats', join(FIXTURES, 'mooncake.jsonl')]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^trace mooncake\.jsonl \(mooncake, detected\): 24 requests over 69 s/m);
    assert.match(r.out, /^input tokens: p50 \d+/m);
    assert.match(r.out, /^burstiness: coefficient of variation of inter-arrival times 0\.00/m);
    assert.match(
      r.out,
      /^prefix sharing: 60\.6% of prompt tokens are in blocks already seen \(58 of 107 blocks, 512-token blocks\)/m,
    );
  });

  it('--json gives the numbers, with null and a reason where a statistic does not apply', async () => {
    const r = await cli(['trace', 'stats', join(FIXTURES, 'burstgpt.csv'), '--json']);
    assert.equal(r.code, 0, r.err);
    const s = JSON.parse(r.out);
    assert.equal(s.format, 'burstgpt');
    assert.equal(s.requests, 22);
    assert.deepEqual(s.prefix_sharing, { value: null, reason: 'no_hashes' });
    assert.equal(typeof s.burstiness_cv.value, 'number');
    assert.deepEqual(s.skipped, [{ reason: 'trace.skip.burstgpt_failed', count: 2, lines: [8, 19] }]);
    // The human lines went to stderr, in Chinese with --lang zh-CN.
    const zh = await cli(['trace', 'stats', join(FIXTURES, 'burstgpt.csv'), '--json', '--lang', 'zh-CN']);
    assert.match(zh.err, /前缀共享：无（burstgpt 格式没有块哈希/);
    assert.match(zh.err, /跳过了 2 行响应 token 为 0 的 BurstGPT 记录/);
  });

  it('an explicit --trace-format wins over detection', async () => {
    const r = await cli(['trace', 'stats', join(FIXTURES, 'servelab.jsonl'), '--trace-format', 'mooncake']);
    assert.equal(r.code, 1);
    assert.match(r.err, /servelab\.jsonl:1.*"timestamp" is missing/);
  });

  describe('--html in headless chromium', { skip: chromiumSkip() }, () => {
    let browser: Browser;
    before(async () => {
      browser = await launchChromium();
    });
    after(async () => browser?.close());

    it('renders its four charts as SVG with no console errors', async () => {
      const html = join(dir, 'mooncake.html');
      const r = await cli(['trace', 'stats', join(FIXTURES, 'mooncake.jsonl'), '--html', html]);
      assert.equal(r.code, 0, r.err);
      assert.match(r.out, /wrote .*mooncake\.html/);
      assert.doesNotMatch(readFileSync(html, 'utf8'), /<script|(src|href)="https?:/);
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const errors: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      await page.goto(`file://${html}`);
      const charts = await page.locator('figure[data-chart]').evaluateAll((fs) =>
        fs.map((f) => ({
          id: f.getAttribute('data-chart'),
          width: f.querySelector('svg')?.getBoundingClientRect().width ?? 0,
          bars: f.querySelectorAll('svg path').length,
        })),
      );
      assert.deepEqual(
        charts.map((c) => c.id),
        ['rate', 'input', 'output', 'gaps'],
      );
      for (const c of charts) {
        assert.ok(c.width > 200, `${c.id} is drawn (${c.width} px)`);
        assert.ok(c.bars > 5, `${c.id} has bars`);
      }
      assert.deepEqual(errors, []);
      await page.close();
    });
  });
});

describe('bad trace files through plan', () => {
  it('names the line and the problem, and exits 1 without a stack', async () => {
    const file = join(dir, 'bad.csv');
    writeFileSync(
      file,
      [
        'TIMESTAMP,ContextTokens,GeneratedTokens',
        '2023-11-16 18:15:50.0,100,10',
        '2023-11-16 18:15:49.0,100,10',
        '2023-11-16 18:15:51.0,-4,10',
      ].join('\n'),
    );
    const r = await cli(['plan', '--no-db', '--trace', file]);
    assert.equal(r.code, 1);
    assert.match(r.err, /bad\.csv:3.*TIMESTAMP 2023-11-16 18:15:49\.0 is earlier than line 2/);
    assert.match(r.err, /bad\.csv:4.*ContextTokens is negative \(-4\)/);
    assert.doesNotMatch(r.err, /\n\s+at /);
  });

  it('an unknown format, a missing column and a bad window are usage errors too', async () => {
    const unknown = await cli([
      'plan',
      '--no-db',
      '--trace',
      join(FIXTURES, 'azure.csv'),
      '--trace-format',
      'csv',
    ]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.err, /unknown trace format "csv"/);
    const file = join(dir, 'missing.csv');
    writeFileSync(file, 'Timestamp,Model,Request tokens,Total tokens,Log Type\n5,ChatGPT,10,20,API log\n');
    const missing = await cli(['plan', '--no-db', '--trace', file, '--trace-format', 'burstgpt']);
    assert.equal(missing.code, 1);
    assert.match(missing.err, /missing\.csv:1.*no "Response tokens" column/);
    const win = await cli([
      'plan',
      '--no-db',
      '--trace',
      join(FIXTURES, 'azure.csv'),
      '--trace-window',
      '30:10',
    ]);
    assert.equal(win.code, 1);
    assert.match(win.err, /--trace-window.*not a window START:END/);
    const empty = await cli([
      'plan',
      '--no-db',
      '--trace',
      join(FIXTURES, 'azure.csv'),
      '--trace-window',
      '5000:',
    ]);
    assert.equal(empty.code, 1);
    assert.match(empty.err, /no request of the trace falls in the window 5000–∞ s/);
    const block = await cli([
      'plan',
      '--no-db',
      '--trace',
      join(FIXTURES, 'azure.csv'),
      '--trace-block-size',
      '256',
    ]);
    assert.equal(block.code, 1);
    assert.match(block.err, /--trace-block-size applies only to Mooncake traces \(this one is azure\)/);
    const noTrace = await cli(['plan', '--no-db', '--input-len', '10', '--trace-format', 'azure']);
    assert.equal(noTrace.code, 1);
    assert.match(noTrace.err, /--trace-format applies only to a trace replay/);
  });

  it('plan prints the trace line and the skipped rows', async () => {
    const r = await cli(['plan', '--no-db', '--trace', join(FIXTURES, 'burstgpt.csv')]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^trace: burstgpt \(detected\), 22 of 22 requests replayed$/m);
    assert.match(r.out, /^2 BurstGPT row\(s\) with 0 response tokens .*: lines 8, 19$/m);
  });
});
