/**
 * `servelab report` and `servelab diagnose` on vLLM result files (`vllm bench serve
 * --save-result`, test/fixtures/vllm), in-process through `main(argv, io)`: a vLLM run in the
 * same table as a servelab run, with its own numbers and the vLLM-definitions marker; the HTML
 * and Markdown reports; servelab's own vllm.json; a report.json without its records; and files
 * of neither shape, which are usage errors with a hint, not stack traces.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import '../helpers/node-warnings.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'vllm');
const VLLM = join(FIXTURES, 'openai-chat-infqps-concurrency8-Qwen3-8B-20261201-120000.json');
const DETAILED = join(FIXTURES, 'openai-chat-4.0qps-Qwen3-8B-20261201-121500.json');
const vllm = JSON.parse(readFileSync(VLLM, 'utf8'));

const dir = mkdtempSync(join(tmpdir(), 'servelab-report-vllm-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The value cells of one line of the transposed console table. */
function line(table: string, header: string): string[] {
  const l = table.split('\n').find((x) => x.startsWith(`${header}  `));
  assert.ok(l, `no "${header}" line in\n${table}`);
  return l
    .slice(header.length)
    .trim()
    .split(/\s{2,}/);
}

const NO_STACK = /at .*\.ts:\d+/;

describe('servelab report with a vLLM result file', () => {
  let ours: { summary: { ttft_ms: { p99: number; n: number } } };
  before(async () => {
    // A real servelab run (virtual time on the built-in simulator) with its vllm.json beside it.
    const io = memoryIo({}, dir);
    const code = await main(
      [
        'plan',
        '--requests',
        '30',
        '--concurrency',
        '4',
        '--input-len',
        '128',
        '--output-len',
        '32',
        '--no-db',
        '--out',
        'run',
        '--format',
        'vllm',
      ],
      io,
    );
    assert.equal(code, 0, io.err());
    ours = JSON.parse(readFileSync(join(dir, 'run', 'report.json'), 'utf8'));
  });

  it('a run folder with a short lower-case name is read as a folder, not as a store id', async () => {
    const io = memoryIo({}, dir);
    assert.equal(await main(['report', 'run'], io), 0, io.err());
    assert.deepEqual(line(io.out(), 'run'), ['run']);
  });

  it("puts both runs in one table, the vLLM run with its own numbers and marked as vLLM's definitions", async () => {
    const io = memoryIo({}, dir);
    assert.equal(await main(['report', 'run/report.json', VLLM], io), 0, io.err());
    const t = io.out();
    assert.deepEqual(line(t, 'run'), ['run/report.json', VLLM]);
    assert.deepEqual(line(t, 'definitions'), ['servelab', 'vLLM']);
    const p99 = line(t, 'TTFT p99 ms');
    assert.equal(p99[1], vllm.p99_ttft_ms.toFixed(1), 'the file’s p99 TTFT (198 samples: reliable)');
    assert.equal(p99[0], `${ours.summary.ttft_ms.p99.toFixed(1)}${ours.summary.ttft_ms.n < 100 ? '*' : ''}`);
    assert.equal(line(t, 'TTFT p50 ms')[1], vllm.median_ttft_ms.toFixed(1));
    assert.equal(line(t, 'TPOT p99 ms')[1], vllm.p99_tpot_ms.toFixed(2));
    assert.equal(line(t, 'out tok/s')[1], vllm.output_throughput.toFixed(1));
    assert.equal(line(t, 'window s')[1], vllm.duration.toFixed(1));
    assert.deepEqual(line(t, 'ok'), ['30', '198']);
    assert.equal(line(t, 'failed (by class)')[1], '2');
    assert.deepEqual(line(t, 'truncated'), ['0', '—'], 'vLLM records no finish reasons: unknown, not 0');
    assert.deepEqual(line(t, 'warm-up'), ['0', '—']);
    assert.equal(
      line(t, 'level')[0],
      'c=8',
      'the servelab run has no level, the vLLM run its --max-concurrency',
    );
    assert.deepEqual(line(t, 'verdict'), ['valid', 'partly checked']);
    assert.match(t, /^definitions vLLM: read from a vLLM result file/m);
    assert.match(
      t,
      new RegExp(`^not checked \\[${VLLM.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\]: cold_start`, 'm'),
    );
    assert.doesNotMatch(t + io.err(), NO_STACK);
  });

  it('writes the HTML and Markdown reports with the marker and every statistic of the file', async () => {
    const io = memoryIo({}, dir);
    const args = ['report', 'run/report.json', VLLM, DETAILED, '--html', 'out/r.html', '--md', 'out/r.md'];
    assert.equal(await main(args, io), 0, io.err());
    const html = readFileSync(join(dir, 'out', 'r.html'), 'utf8');
    assert.match(html, /<tr data-run="run\/report\.json">/, 'a servelab row is not marked');
    assert.equal(html.match(/data-definitions="vllm"/g)?.length, 2);
    assert.ok(html.includes(`<td>${vllm.p99_ttft_ms.toFixed(1)}</td>`));
    assert.match(html, /definitions vLLM/);
    assert.match(html, /<h3>Not checked<\/h3>/);
    const detailed = JSON.parse(readFileSync(DETAILED, 'utf8'));
    assert.ok(html.includes(detailed['p99.9_ttft_ms'].toFixed(2)), 'p99.9, which has no table column');
    const md = readFileSync(join(dir, 'out', 'r.md'), 'utf8');
    assert.ok(md.includes(`| ${VLLM} | c=8 | vLLM |`));
    assert.ok(md.includes(`| ${vllm.p99_ttft_ms.toFixed(1)} |`));
    assert.match(md, /### Not checked/);
    assert.doesNotMatch(io.err(), NO_STACK);
  });

  it('--json carries the marker, the numbers and the skipped checks', async () => {
    const io = memoryIo({}, dir);
    assert.equal(await main(['report', 'run/report.json', VLLM, '--json'], io), 0, io.err());
    const j = JSON.parse(io.out());
    assert.deepEqual(
      j.runs.map((r: { definitions: string }) => r.definitions),
      ['servelab', 'vllm'],
    );
    assert.equal(j.table[1].ttft_ms_p99.value, vllm.p99_ttft_ms);
    assert.equal(j.table[1].truncated.value, null);
    assert.ok(
      j.skipped.some(
        (s: { run: string; checks: string[] }) => s.run === VLLM && s.checks.includes('lateness'),
      ),
    );
    assert.ok(
      !j.skipped.some((s: { run: string }) => s.run === 'run/report.json'),
      'the servelab run was fully checked',
    );
  });

  it("reads servelab's own vllm.json as a vLLM file, and points to the report.json next to it", async () => {
    const io = memoryIo({}, dir);
    assert.equal(await main(['report', 'run/vllm.json'], io), 0, io.err());
    assert.deepEqual(line(io.out(), 'definitions'), ['vLLM']);
    assert.match(
      io.out(),
      /run\/report\.json next to it is the same run with its records and servelab's definitions/,
    );
    // Alone, it is just a vLLM-definitions file.
    mkdirSync(join(dir, 'alone'), { recursive: true });
    copyFileSync(join(dir, 'run', 'vllm.json'), join(dir, 'alone', 'vllm.json'));
    const alone = memoryIo({}, dir);
    assert.equal(await main(['report', 'alone/vllm.json'], alone), 0, alone.err());
    assert.match(alone.out(), /written by servelab/);
    assert.doesNotMatch(alone.out(), /next to it/);
  });

  it('says which checks a report.json without its requests.jsonl could not run', async () => {
    mkdirSync(join(dir, 'bare'), { recursive: true });
    copyFileSync(join(dir, 'run', 'report.json'), join(dir, 'bare', 'report.json'));
    const io = memoryIo({}, dir);
    assert.equal(await main(['report', 'bare/report.json'], io), 0, io.err());
    // Its server series is embedded but no record is: the token-count check has no client side
    // to compare (it once read that as a client sum of 0, an INVALID token_mismatch).
    assert.deepEqual(line(io.out(), 'verdict'), ['partly checked']);
    assert.doesNotMatch(io.out(), /^definitions/m, 'a table of servelab runs has no definitions line');
    assert.match(
      io.out(),
      /not checked \[bare\/report\.json\]: lateness, token_mismatch: no per-request records/,
    );
    // The means come from the summary; the medians need the records.
    assert.equal(line(io.out(), 'in tok p50')[0], '—');
    assert.notEqual(line(io.out(), 'in tok mean')[0], '—');
  });

  it('diagnose reads a vLLM file and claims nothing it cannot know', async () => {
    const io = memoryIo({}, dir);
    assert.equal(await main(['diagnose', VLLM], io), 0, io.err());
    assert.match(io.out(), /^valid: true \(some checks could not run/m);
    assert.match(io.out(), /not checked .*truncation: a vLLM result file records no finish reasons/);
    assert.match(io.out(), /not checked .*high_ttft: no TTFT p90 in the file/);
    assert.match(io.out(), /findings: none/);
  });

  it('a JSON file of neither shape, a truncated one and a missing one are usage errors with a hint', async () => {
    writeFileSync(join(dir, 'other.json'), '{"foo": 1}');
    const text = readFileSync(VLLM, 'utf8');
    writeFileSync(join(dir, 'cut.json'), text.slice(0, Math.floor(text.length / 3)));
    const io = memoryIo({}, dir);
    assert.equal(await main(['report', 'other.json', 'cut.json', 'missing.json'], io), 1);
    const err = io.err();
    assert.match(err, /other\.json: neither a servelab report\.json \(no "summary"\) nor a vLLM result/);
    assert.match(err, /cut\.json: not valid JSON .*is the file truncated\?/);
    assert.match(err, /missing\.json: no such file/);
    assert.equal(err.match(/hint: give a servelab report\.json .* or a vLLM result file/g)?.length, 3);
    assert.doesNotMatch(err, NO_STACK);
    const d = memoryIo({}, dir);
    assert.equal(await main(['diagnose', 'cut.json'], d), 1);
    assert.doesNotMatch(d.err(), NO_STACK);
  });
});
