/**
 * `servelab report` write-ups through the CLI, in-process through `main(argv, io)` on a plan
 * run (virtual time on the built-in simulator): two write-ups in one folder each keep their own
 * charts (`NAME.charts/`), `--lang zh-CN` writes the course's seven sections in Chinese with no
 * catalogue key left (the HTML report too), and an unknown `--lang` is a usage error with a hint.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { ExitCode } from '../../src/core/errors.js';
import '../helpers/node-warnings.js';

const dir = mkdtempSync(join(tmpdir(), 'servelab-writeup-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const COURSE = ['背景与目标', '系统配置', '负载设计', '指标结果', '问题解释', '源码发现', '最终结论'];
/** A catalogue key left in the text (`report.h.results`, `writeup.s1` …; a file's `report.json` is none). */
const KEY = /\b(report|writeup|dashboard|common)\.(?!json\b)[a-z][A-Za-z]*/;

async function cli(args: string[], env: Record<string, string> = {}) {
  const io = memoryIo(env, dir);
  const code = await main(args, io);
  return { code, out: io.out(), err: io.err() };
}

describe('servelab report --md and --lang', () => {
  before(async () => {
    for (const [name, c] of [
      ['a', '2'],
      ['b', '6'],
    ]) {
      const r = await cli([
        'plan',
        '--requests',
        '24',
        '--concurrency',
        c,
        '--input-len',
        '128',
        '--output-len',
        '24',
        '--no-db',
        '--out',
        name,
      ]);
      assert.equal(r.code, 0, r.err);
    }
  });

  it('two write-ups in one folder keep their own charts', async () => {
    const one = await cli(['report', 'a/report.json', '--md', 'one.md']);
    assert.equal(one.code, 0, one.err);
    const two = await cli(['report', 'a/report.json', 'b/report.json', '--md', 'two.md']);
    assert.equal(two.code, 0, two.err);
    assert.match(one.out, /one\.charts/);
    const oneCharts = readdirSync(join(dir, 'one.charts')).sort();
    const twoCharts = readdirSync(join(dir, 'two.charts')).sort();
    assert.ok(oneCharts.length > 0 && twoCharts.length > oneCharts.length, `${oneCharts} / ${twoCharts}`);
    assert.equal(existsSync(join(dir, 'charts')), false, 'no shared charts/ folder');
    // Each write-up links only its own folder's files, and every link resolves.
    for (const [md, folder] of [
      ['one.md', 'one.charts'],
      ['two.md', 'two.charts'],
    ]) {
      const text = readFileSync(join(dir, md), 'utf8');
      const links = [...text.matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)].map((m) => m[1]);
      assert.ok(links.length > 0);
      for (const l of links) {
        assert.ok(l.startsWith(`${folder}/`), `${md} links ${l}`);
        assert.ok(existsSync(join(dir, l)), l);
      }
    }
    // The first write-up's pictures are still its own: one run's CDF, not two.
    const cdf = readFileSync(join(dir, 'one.charts', 'ttft-cdf.svg'), 'utf8');
    assert.doesNotMatch(cdf, /b\/report\.json/);
  });

  it('--lang zh-CN writes the seven sections in Chinese, with no catalogue key left', async () => {
    const r = await cli([
      'report',
      'a/report.json',
      'b/report.json',
      '--lang',
      'zh-CN',
      '--md',
      'w.md',
      '--html',
      'w.html',
    ]);
    assert.equal(r.code, 0, r.err);
    const md = readFileSync(join(dir, 'w.md'), 'utf8');
    const heads = md.split('\n').filter((l) => /^## \d\. /.test(l));
    assert.deepEqual(
      heads.map((h) => h.slice(6)),
      COURSE,
    );
    assert.doesNotMatch(md, KEY);
    // Metric keys stay English.
    assert.match(md, /\| ttft_ms p99 \|/);
    const html = readFileSync(join(dir, 'w.html'), 'utf8');
    assert.match(html, /<html lang="zh-CN">/);
    assert.doesNotMatch(html.replace(/<svg[\s\S]*?<\/svg>/g, ''), KEY);
    assert.match(html, /<h2>指标结果<\/h2>/);
  });

  it('the language follows LANG when --lang is absent', async () => {
    const r = await cli(['report', 'a/report.json', '--md', 'env.md'], { LANG: 'zh_CN.UTF-8' });
    assert.equal(r.code, 0, r.err);
    assert.match(readFileSync(join(dir, 'env.md'), 'utf8'), /## 1\. 背景与目标/);
  });

  it('an unknown --lang is a usage error with a hint, not a stack trace', async () => {
    const r = await cli(['report', 'a/report.json', '--lang', 'fr']);
    assert.equal(r.code, ExitCode.usage);
    assert.match(r.err, /--lang/);
    assert.match(r.err, /zh-CN/);
    assert.doesNotMatch(r.err, /at .*\.ts:\d+/);
  });
});
