/**
 * The diagnosis read by a person: a six-level concurrency sweep on the simulator (virtual time,
 * through `servelab exp run`) diagnosed through the CLI gives one block per rule naming its
 * levels, and in Chinese (`--lang zh-CN`, or a zh_CN locale) every sentence is Chinese, with no
 * catalogue key, no unfilled placeholder and no English catalogue sentence left in it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Diagnosis, Finding } from '../../src/analysis/diagnose/types.js';
import type { LoadedRun } from '../../src/analysis/loaded-run.js';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { CATALOGUES } from '../../src/i18n/index.js';
import { renderDiagnosisText } from '../../src/report/diagnose/render.js';
import { assertNoNodeWarning } from '../helpers/node-warnings.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'servelab-diagnose-lang-'));
let expId = '';

/** max_num_seqs 4: levels 16 and 32 queue for a slot (TTFT p90 well above 500 ms), 1–8 do not. */
const SWEEP = `kind: concurrency-sweep
name: lang-sweep
targets:
  sim:
    sim: {model: qwen3-0.6b, gpu: h100, max_num_seqs: 4, clock: virtual}
seed: 1
workload: {input_len: 256, output_len: 128}
load: {concurrency: [1, 2, 4, 8, 16, 32], requests: 32}
sweep: {stop: {ttft_p99_factor: 1000, e2e_p99_factor: 1000}}
warmup: 0
`;

before(async () => {
  writeFileSync(join(dir, 'sweep.yaml'), SWEEP);
  const io = memoryIo({}, dir);
  assert.equal(
    await main(['exp', 'run', 'sweep.yaml', '--db', 'store.db', '--json', 'exp.json'], io),
    0,
    io.err(),
  );
  expId = /experiment (\w+):/.exec(io.err() + io.out())?.[1] ?? '';
  assert.ok(expId, io.out() + io.err());
});
after(() => {
  if (!process.env.KEEP) rmSync(dir, { recursive: true, force: true });
});

/** The CLI as a real process, with exactly the locale variables given (none inherited). */
function cli(
  argv: string[],
  locale: Record<string, string> = {},
): Promise<{ code: number; out: string; err: string }> {
  const env: Record<string, string | undefined> = { ...process.env, LC_ALL: '', LC_MESSAGES: '', LANG: '' };
  Object.assign(env, locale);
  const tsx = import.meta.resolve('tsx');
  const child = spawn(process.execPath, ['--import', tsx, join(ROOT, 'test/helpers/cli-entry.ts'), ...argv], {
    cwd: dir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  return new Promise((res, rej) =>
    child.on('close', (code) => {
      try {
        assertNoNodeWarning(err);
        res({ code: code ?? -1, out, err });
      } catch (e) {
        rej(e);
      }
    }),
  );
}

/** The block headers of a console diagnosis: `SEVERITY rule …`. */
const headers = (text: string) => [...text.matchAll(/^(\S+) ([a-z_]+)(?: \[| — )/gm)].map((m) => m[2]);

/**
 * The fixed English text of every diagnose message (the longest run of words between its
 * placeholders), for telling an untranslated sentence in the Chinese output.
 */
const englishPhrases = Object.entries(CATALOGUES.en)
  .filter(([k]) => k.startsWith('diagnose.'))
  .map(([, v]) =>
    v
      .split(/\{\w+\}/)
      .sort((a, b) => b.length - a.length)[0]
      .trim(),
  )
  .filter((p) => p.length >= 16);

describe('servelab diagnose on a six-level sweep', () => {
  it('prints one block per rule, naming the levels it fired at', async () => {
    const io = memoryIo({}, dir);
    assert.equal(await main(['diagnose', expId, '--db', 'store.db'], io), 0, io.err());
    const text = io.out();
    const rules = headers(text);
    assert.ok(rules.includes('high_ttft_queueing'), text);
    assert.equal(new Set(rules).size, rules.length, `a rule with two blocks:\n${text}`);
    assert.match(text, /^WARN high_ttft_queueing — concurrency 16–32 \(2 runs\)$/m);
    // One symptom line per level, the mechanism and the next experiment once.
    assert.equal(text.match(/concurrency (16|32) \[\w+\]: high time to first token/g)?.length, 2);
    assert.equal(text.match(/queueing: requests waited in the engine/g)?.length, 1);
    assert.equal(text.match(/servelab exp init concurrency-sweep/g)?.length, 1);
  });

  it('explains in Chinese with --lang zh-CN: no catalogue key, placeholder or English sentence', async () => {
    const r = await cli(['diagnose', expId, '--db', 'store.db', '--lang', 'zh-CN']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^结论：/);
    assert.match(r.out, /^警告 high_ttft_queueing — 并发 16–32（2 次运行）$/m);
    assert.match(r.out, /机制：\s+排队：请求在引擎里等待运行槽位或 KV 块/);
    assert.match(r.out, /下一步：\s+servelab exp init concurrency-sweep/);
    assert.doesNotMatch(r.out, /\bdiagnose\.[a-z_]+\.[a-z_]+/);
    assert.doesNotMatch(r.out, /\{\w+\}/);
    const english = englishPhrases.filter((p) => r.out.includes(p));
    assert.deepEqual(english, [], r.out);
    // Metric names stay as they are.
    assert.match(r.out, /TTFT p50 [\d.]+ ms/);
  });

  it('follows the locale: LANG=zh_CN.UTF-8 is Chinese, LANG=C (or none) English', async () => {
    const zh = await cli(['diagnose', expId, '--db', 'store.db'], { LANG: 'zh_CN.UTF-8' });
    assert.equal(zh.code, 0, zh.err);
    assert.match(zh.out, /^结论：/);
    const c = memoryIo({ LANG: 'C', LC_MESSAGES: '' }, dir);
    assert.equal(await main(['diagnose', expId, '--db', 'store.db'], c), 0, c.err());
    assert.match(c.out(), /^valid: true/);
    assert.doesNotMatch(c.out(), /[\u4e00-\u9fff]/);
  });

  it('refuses an unknown --lang as a usage error with a hint', async () => {
    const io = memoryIo({}, dir);
    assert.equal(await main(['diagnose', expId, '--db', 'store.db', '--lang', 'fr'], io), 1);
    assert.match(io.err(), /--lang: unknown language "fr"/);
    assert.match(io.err(), /hint: use --lang en or --lang zh-CN/);
    assert.equal(io.out(), '');
  });
});

describe('renderDiagnosisText', () => {
  const run = (id: string, c: number, target = 'sim') =>
    ({
      id,
      label: `${target} c=${c}`,
      level: { concurrency: c },
      config: { target },
    }) as unknown as LoadedRun;
  const runs = [1, 2, 4, 8, 16, 32].map((c) => run(`r${c}`, c));
  const finding = (id: string, mechanism = 'm'): Finding => ({
    rule: 'high_ttft_queueing',
    severity: 'warn',
    runs: [id],
    symptom: `s ${id}`,
    evidence: [`e ${id}`],
    request_ids: [`${id}-1`],
    mechanism,
    next: { command: 'servelab exp init concurrency-sweep', change: 'c' },
  });
  const base: Diagnosis = { valid: true, reasons: [], findings: [], unexplained: [], skipped: [] };

  it('orders a group by level, names neighbouring levels as a range and others as a list', () => {
    const text = renderDiagnosisText(
      { ...base, findings: [finding('r32'), finding('r8'), finding('r16')] },
      runs,
    );
    assert.match(text, /^WARN high_ttft_queueing — concurrency 8–32 \(3 runs\)$/m);
    assert.match(
      text,
      /symptom: {3}concurrency 8 \[r8\]: s r8\n {13}concurrency 16 \[r16\]: s r16\n {13}concurrency 32/,
    );
    // The evidence and requests of the highest level.
    assert.match(
      text,
      /evidence: {2}at concurrency 32, the last of 3:\n {13}e r32\n {2}requests: {2}r32-1\n/,
    );
    const gappy = renderDiagnosisText({ ...base, findings: [finding('r1'), finding('r16')] }, runs);
    assert.match(gappy, /— concurrency 1, 16 \(2 runs\)/);
  });

  it("lists each level's mechanism when they differ, and groups reasons, skipped checks and unexplained", () => {
    const d: Diagnosis = {
      valid: false,
      reasons: [
        { code: 'littles_law', run: 'r32', message: 'off 30%' },
        { code: 'littles_law', run: 'r16', message: 'off 12%' },
        { code: 'error_rate', run: 'r8', message: 'errors' },
      ],
      findings: [finding('r16', 'one'), finding('r32', 'two')],
      unexplained: [
        { rule: 'tail', run: 'r32', observation: 'tail 32', request_ids: [] },
        { rule: 'tail', run: 'r16', observation: 'tail 16', request_ids: ['x'] },
      ],
      skipped: [
        { run: 'r1', checks: ['lateness'], reason: 'why' },
        { run: 'r2', checks: ['lateness'], reason: 'why' },
      ],
    };
    const text = renderDiagnosisText(d, runs);
    assert.match(
      text,
      /^valid: false \(some checks.*\n {2}- littles_law: concurrency 16–32\n {6}concurrency 16 \[r16\]: off 12%\n {6}concurrency 32 \[r32\]: off 30%\n {2}- \[r8\] error_rate: errors\n/,
    );
    assert.match(text, /^not checked \[concurrency 1–2\]: lateness: why$/m);
    assert.match(text, /mechanism: concurrency 16: one\n {13}concurrency 32: two\n/);
    assert.match(text, /next: {6}servelab exp init concurrency-sweep\n {13}c\n/);
    assert.match(
      text,
      /unexplained — concurrency 16–32:\n {2}concurrency 16 \[r16\]: tail 16 \(x\)\n {2}concurrency 32 \[r32\]: tail 32\n/,
    );
  });

  it('names each target apart when the runs span several', () => {
    const two = [...runs, run('b16', 16, 'other'), run('b32', 32, 'other')];
    const text = renderDiagnosisText(
      { ...base, findings: [finding('r16'), finding('b16'), finding('b32')] },
      two,
    );
    assert.match(text, /— sim: concurrency 16; other: concurrency 16–32 \(3 runs\)/);
  });
});
