/**
 * Chinese everywhere prose appears: `exp run`, `report`, `diagnose`, `runs list` and `exp list` under `--lang zh-CN`
 * print no English word outside a committed allowlist (`zh-console-allowlist.txt`: metric
 * names, units, engine names) and a few patterns (ids, paths, flags, snake_case keys, the
 * file's target names, the simulator's model and GPU names). The run is small, on the
 * in-process simulator (`clock: virtual`): one target with faults, so the output carries
 * validity reasons, a stop reason and an undetermined knee; one that saturates at two requests,
 * so it has a knee and a diagnosis observation. The failure lists every offending word with the command,
 * the stream and the line it came from, so words added by new messages are easy to find.
 * Also: no zh-CN catalogue entry equals its English text, apart from a short explicit list.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { EXPERIMENT_KINDS } from '../../src/exp/index.js';
import { CATALOGUES } from '../../src/i18n/index.js';
import { OUTCOMES } from '../../src/record/types.js';
import { BUILTIN_GPUS, BUILTIN_MODELS } from '../../src/sim/catalogue/index.js';
import { englishWords } from './english-words.js';
import '../helpers/node-warnings.js';

const dir = mkdtempSync(join(tmpdir(), 'servelab-zh-console-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The experiment file's own names (its name, its targets): the user's, shown as given. */
const FILE_NAMES = ['zh-sweep', 'h100', 'a100'];

const FILE = `kind: concurrency-sweep
name: zh-sweep
targets:
  h100:
    sim: {model: qwen3-0.6b, gpu: h100, clock: virtual, fault_rate: 0.2, faults: [http500, truncate]}
  a100:
    sim: {model: qwen3-0.6b, gpu: a100-80gb, clock: virtual, max_num_seqs: 2}
load:
  concurrency: [1, 4, 8]
  requests: 40
seed: 1
workload: {input_len: 64, output_len: 16}
slo: {ttft_ms: 1000}
`;

/** Every line with an English word: the words, then where the line came from. */
function offending(where: string, text: string, ids: readonly string[]): string[] {
  // ids and names: the simulator's models and GPUs, the kinds, request outcomes (record keys)
  const names = [
    ...Object.keys(BUILTIN_MODELS),
    ...Object.keys(BUILTIN_GPUS),
    ...EXPERIMENT_KINDS,
    ...OUTCOMES,
    ...FILE_NAMES,
    ...ids,
  ];
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const words = englishWords(line, names);
    if (words.length) out.push(`[${words.join(' ')}] in ${where}: ${line.trim()}`);
  }
  return out;
}

describe('--lang zh-CN: no English prose on the console', () => {
  it('exp run, report and diagnose print only allowed ASCII words', async () => {
    writeFileSync(join(dir, 'sweep.yaml'), FILE);
    const db = join(dir, 'x.db');
    const exp = memoryIo({}, dir);
    const code = await main(
      ['exp', 'run', 'sweep.yaml', '--db', db, '--json', 'r.json', '--lang', 'zh-CN'],
      exp,
    );
    assert.ok(code === 0 || code === 2, exp.err());
    const result = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')) as {
      experiment_id: string;
      runs: { run_id: string }[];
    };
    const ids = [result.experiment_id, ...result.runs.map((r) => r.run_id)];
    assert.ok(
      ids.every((id) => typeof id === 'string' && id.length > 0),
      JSON.stringify(ids),
    );
    const found = [
      ...offending('exp run stdout', exp.out(), ids),
      ...offending('exp run stderr', exp.err(), ids),
    ];
    for (const cmd of ['report', 'diagnose'] as const) {
      const io = memoryIo({}, dir);
      const rc = await main([cmd, result.experiment_id, '--db', db, '--lang', 'zh-CN'], io);
      assert.ok(rc === 0 || rc === 2, `${cmd}: ${io.err()}`);
      assert.match(io.out(), /[\u4e00-\u9fff]/, `${cmd} printed Chinese`);
      found.push(...offending(`${cmd} stdout`, io.out(), ids), ...offending(`${cmd} stderr`, io.err(), ids));
    }
    // The store's lists: statuses, verdicts and counts in Chinese, columns in display width.
    for (const cmd of [
      ['runs', 'list'],
      ['exp', 'list'],
    ]) {
      const io = memoryIo({}, dir);
      assert.equal(await main([...cmd, '--db', db, '--lang', 'zh-CN'], io), 0, io.err());
      assert.match(io.out(), /已完成/, `${cmd.join(' ')} printed Chinese`);
      found.push(...offending(`${cmd.join(' ')} stdout`, io.out(), ids));
    }
    // A reference that names nothing: the problem and its hint in Chinese too.
    const none = memoryIo({}, dir);
    assert.equal(await main(['report', 'zzzzzzzz', '--db', db, '--lang', 'zh-CN'], none), 1);
    found.push(...offending('report (unknown id) stderr', none.err(), ['zzzzzzzz']));
    assert.deepEqual(found, [], `English words under --lang zh-CN:\n${found.join('\n')}`);
  });
});

/**
 * zh-CN entries that are right to equal their English text: a name, a unit or a format with no
 * words in it. Each one is a name in Chinese technical writing too.
 */
const SAME_IN_BOTH = new Set([
  'source.engine.vllm', // vLLM V1
  'source.engine.sglang', // SGLang
  'source.engine.llamacpp', // llama.cpp
  'diagnose.plateau.point', // {x}: {v} tok/s
  'dashboard.col.id', // id
  'dashboard.live.gpu', // GPU
  'sessions.table.user_ttft', // user_ttft_ms p50 / p90 / p99: a metric key and its percentiles
]);

it('every zh-CN catalogue entry differs from its English text (bar names and units)', () => {
  const en = CATALOGUES.en as Record<string, string>;
  const zh = CATALOGUES['zh-CN'] as Record<string, string>;
  const same = Object.keys(en).filter((k) => zh[k] === en[k] && !SAME_IN_BOTH.has(k));
  assert.deepEqual(
    same.map((k) => `${k}: ${JSON.stringify(en[k])}`),
    [],
    'translate these zh-CN entries (or, for a pure name or unit, list the key in SAME_IN_BOTH)',
  );
});

it('--help --lang zh-CN: commander’s titles, the help option and every command’s description in Chinese', async () => {
  const io = memoryIo({}, dir);
  assert.equal(await main(['--help', '--lang', 'zh-CN'], io), 0, io.err());
  const out = io.out();
  for (const title of ['用法：', '选项：', '命令：']) assert.match(out, new RegExp(`^${title}`, 'm'), title);
  assert.match(out, /^ {2}-h, --help +显示命令的帮助$/m);
  // Each command's line (name, then its description) carries Chinese.
  const commands = out
    .slice(out.indexOf('命令：'))
    .split('\n')
    .slice(1)
    .filter((l) => /^ {2}\S/.test(l));
  assert.ok(commands.length >= 15, out);
  for (const line of commands) assert.match(line, /[\u4e00-\u9fff]/, line);
  // English stays the default.
  const en = memoryIo({ LANG: 'C' }, dir);
  assert.equal(await main(['--help'], en), 0);
  assert.match(en.out(), /^Usage: servelab/m);
});
