/**
 * `servelab run` end to end, in-process through `main(argv, io)` over real loopback HTTP:
 * usage errors, exit codes, the one-record-per-planned-request invariant, and the API key
 * never reaching any output, file or the store.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { startSimServer } from '../../src/sim/server/index.js';
import {
  chatChunk,
  DONE,
  misbehaviours,
  refusedPort,
  type Script,
  sse,
  startFakeOpenAI,
  startSseServer,
  usageChunk,
} from '../helpers/misbehaving.js';
import '../helpers/node-warnings.js';

const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'servelab-cli-'));
  dirs.push(d);
  return d;
}
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function allText(dir: string): string {
  let out = '';
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const p = join(dir, name);
    if (statSync(p).isFile()) out += readFileSync(p).toString('latin1');
  }
  return out;
}

describe('servelab run', () => {
  it('lists every usage problem at once, each with a hint, and exits 1', async () => {
    const io = memoryIo({}, tmp());
    const code = await main(
      [
        'run',
        '--url',
        'not-a-url',
        '--concurrency',
        'x',
        '--rate',
        '-2',
        '--input-len',
        'weird:1',
        '--threshold',
        'nonsense',
      ],
      io,
    );
    assert.equal(code, 1);
    const err = io.err();
    for (const flag of ['--url', '--concurrency', '--rate', '--threshold'])
      assert.match(err, new RegExp(`${flag.replace(/-/g, '\\-')}`));
    assert.ok((err.match(/hint:/g) ?? []).length >= 4, err);
    assert.doesNotMatch(err, /at .*\.ts:\d+/, 'no stack trace for bad input');
  });

  it('exits 3 with a hint when the target is unreachable', async () => {
    const port = await refusedPort();
    const io = memoryIo({}, tmp());
    const code = await main(
      ['run', '--url', `http://127.0.0.1:${port}/v1`, '--requests', '2', '--no-db'],
      io,
    );
    assert.equal(code, 3);
    assert.match(io.err(), /connection refused: is the server running on 127\.0\.0\.1:\d+\?/);
  });

  it('writes exactly one record per planned request, whatever the server does', async () => {
    const scripts: (() => Script)[] = [
      misbehaviours.truncated,
      misbehaviours.inBandError,
      misbehaviours.malformedJson,
      misbehaviours.resetMidStream,
      misbehaviours.status500,
      () => misbehaviours.reasoningOnly(),
      misbehaviours.noDoneAfterFinish,
      misbehaviours.noUsage,
    ];
    let n = 0;
    const server = await startSseServer((req) => {
      if (req.path.startsWith('/v1/models'))
        return { headers: { 'content-type': 'application/json' }, steps: ['{"data":[{"id":"m"}]}'] };
      return scripts[n++ % scripts.length]();
    });
    try {
      const dir = tmp();
      const io = memoryIo({}, dir);
      const code = await main(
        [
          'run',
          '--url',
          server.baseUrl,
          '--concurrency',
          '3',
          '--requests',
          '16',
          '--warmup',
          '2',
          '--out',
          'out',
          '--no-db',
          '--no-scrape',
        ],
        io,
      );
      assert.ok(code === 0 || code === 3, `exit ${code}: ${io.err()}`);
      const lines = readFileSync(join(dir, 'out', 'requests.jsonl'), 'utf8')
        .trim()
        .split('\n');
      assert.equal(lines.length, 18);
      const recs = lines.map((l) => JSON.parse(l));
      assert.equal(new Set(recs.map((r) => r.id)).size, 18);
      const report = JSON.parse(readFileSync(join(dir, 'out', 'report.json'), 'utf8'));
      assert.equal(report.summary.requests.planned, 18);
      assert.equal(report.summary.requests.measured, 16);
      const outcomes = Object.values(report.summary.outcomes as Record<string, number>).reduce(
        (a, b) => a + b,
        0,
      );
      assert.equal(outcomes, 16);
      assert.ok(
        report.summary.outcomes.stream_error > 0 && report.summary.outcomes.incomplete > 0,
        JSON.stringify(report.summary.outcomes),
      );
    } finally {
      await server.close();
    }
  });

  it('counts as truncated only the length stops below the asked length, or with no length asked', async () => {
    // The server answers `tokens(max_tokens)` one-token chunks and stops with finish_reason length.
    const serve = (tokens: (maxTokens: number) => number) =>
      startSseServer((req) => {
        if (req.path.startsWith('/v1/models'))
          return { headers: { 'content-type': 'application/json' }, steps: ['{"data":[{"id":"m"}]}'] };
        return misbehaviours.finishLengthAfter(tokens(Number(req.body?.max_tokens)));
      });
    const runAgainst = async (url: string, flags: string[]) => {
      const dir = tmp();
      const io = memoryIo({}, dir);
      const args = ['run', '--url', url, '--prompt', 'hi', '--requests', '4', '--out', 'out'];
      const code = await main([...args, '--no-db', '--no-scrape', ...flags], io);
      assert.equal(code, 0, io.err());
      const path = join(dir, 'out', 'report.json');
      const table = memoryIo({}, dir);
      assert.equal(await main(['report', path], table), 0, table.err());
      return { summary: JSON.parse(readFileSync(path, 'utf8')).summary, table: table.out() };
    };
    const exact = await serve((n) => n);
    const early = await serve((n) => n / 2);
    try {
      // Asked for 8 (--output-len), got 8: complete, although finish_reason is length.
      const ok = await runAgainst(exact.baseUrl, ['--output-len', '8']);
      assert.equal(ok.summary.outcomes.length, 0);
      assert.equal(ok.summary.outcomes.ok, 4);
      assert.equal(ok.summary.finish_reasons.length, 4);
      assert.ok(!ok.summary.warnings.some((w: string) => /truncated/.test(w)), ok.summary.warnings.join());
      assert.match(ok.table, /^truncated\s+0$/m);
      // Asked for 8, the server stopped at 4 with finish_reason length: truncated.
      const cut = await runAgainst(early.baseUrl, ['--output-len', '8']);
      assert.equal(cut.summary.outcomes.length, 4);
      assert.ok(cut.summary.warnings.some((w: string) => /^4 request\(s\) were truncated/.test(w)));
      assert.match(cut.table, /^truncated\s+4$/m);
      // --max-tokens is a cap, not a length the run asked for: stopping there is a truncation.
      const capped = await runAgainst(exact.baseUrl, ['--max-tokens', '8']);
      assert.equal(capped.summary.outcomes.length, 4);
    } finally {
      await exact.close();
      await early.close();
    }
  });

  it('--no-stream: per-token metrics are null with a warning, and an SLO on them is a usage error', async () => {
    const sim = await startSimServer({ model: 'llama-3.1-8b', gpu: 'h100', port: 0, timeScale: 50 });
    try {
      const dir = tmp();
      const base = [
        'run',
        '--url',
        `${sim.url}/v1`,
        '--prompt',
        'hi',
        '--output-len',
        '16',
        '--no-db',
        '--no-scrape',
      ];
      const io = memoryIo({}, dir);
      const code = await main(
        [...base, '--no-stream', '--requests', '3', '--slo', 'e2e_ms=60000', '--out', 'out'],
        io,
      );
      assert.equal(code, 0, io.err());
      const report = JSON.parse(readFileSync(join(dir, 'out', 'report.json'), 'utf8'));
      const s = report.summary;
      assert.equal(s.requests.succeeded, 3);
      for (const k of ['ttft_ms', 'tpot_ms', 'itl_ms', 'max_gap_ms']) {
        assert.equal(s[k].n, 0, k);
        assert.equal(s[k].p50, null, k);
      }
      assert.equal(s.e2e_ms.n, 3);
      assert.ok(
        s.warnings.some((w: string) => /were not streamed/.test(w)),
        s.warnings.join('\n'),
      );
      const recs = readFileSync(join(dir, 'out', 'requests.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      assert.ok(recs.every((r) => r.stream === false));
      // An objective on per-token times cannot be judged without a stream: exit 1, why and a hint.
      const bad = memoryIo({}, dir);
      assert.equal(
        await main([...base, '--no-stream', '--requests', '1', '--slo', 'ttft_ms=500,tpot_ms=50'], bad),
        1,
      );
      assert.match(
        bad.err(),
        /tpot_ms needs per-token times, and a non-streaming run \(--no-stream\) has none/,
      );
      assert.match(bad.err(), /ttft_ms needs per-token times/);
      assert.match(bad.err(), /hint: drop --no-stream/);
    } finally {
      await sim.close();
    }
  });

  it('never writes the API key to output, files, records or the store', async () => {
    const key = 'sk-test-SECRET-4242-abcdef';
    const server = await startFakeOpenAI({ apiKey: key, extras: true });
    try {
      const dir = tmp();
      const io = memoryIo({ INFERENCE_API_KEY: key }, dir);
      const code = await main(
        [
          'run',
          '--url',
          server.baseUrl,
          '--requests',
          '4',
          '--header',
          `X-Api-Key:${key}`,
          '--header',
          'X-Team:infra',
          '--out',
          'out',
          '--db',
          'store.db',
          '--embed-records',
          '--json',
          'result.json',
          '--format',
          'vllm',
        ],
        io,
      );
      assert.equal(code, 0, io.err());
      assert.ok(
        server.requests.some((r) => r.headers.authorization === `Bearer ${key}`),
        'the key is sent',
      );
      const everything = io.out() + io.err() + allText(dir);
      assert.ok(!everything.includes(key), 'key leaked');
      const report = JSON.parse(readFileSync(join(dir, 'out', 'report.json'), 'utf8'));
      assert.equal(report.config.target.headers['X-Api-Key'], '[redacted]');
      assert.equal(report.config.target.headers['X-Team'], 'infra');
      // The wrong key is rejected and the hint names the variable, still without echoing it.
      const io2 = memoryIo({ INFERENCE_API_KEY: `${key}-wrong` }, dir);
      assert.equal(await main(['run', '--url', server.baseUrl, '--requests', '1', '--no-db'], io2), 3);
      assert.match(io2.err(), /INFERENCE_API_KEY/);
      assert.ok(!(io2.out() + io2.err()).includes(key));
    } finally {
      await server.close();
    }
  });

  it('exits 2 when a threshold fails and 0 when it passes', async () => {
    const server = await startFakeOpenAI();
    try {
      const dir = tmp();
      const fail = memoryIo({}, dir);
      assert.equal(
        await main(
          [
            'run',
            '--url',
            server.baseUrl,
            '--requests',
            '3',
            '--no-db',
            '--threshold',
            'error_rate<0.5',
            '--threshold',
            'ttft_ms.p50<0.0001',
          ],
          fail,
        ),
        2,
      );
      assert.match(fail.out(), /FAIL\s+ttft_ms\.p50<0\.0001/);
      assert.match(fail.out(), /pass\s+error_rate<0\.5/);
      const pass = memoryIo({}, dir);
      assert.equal(
        await main(
          [
            'run',
            '--url',
            server.baseUrl,
            '--requests',
            '3',
            '--no-db',
            '--threshold',
            'requests.succeeded>=3',
          ],
          pass,
        ),
        0,
      );
    } finally {
      await server.close();
    }
  });

  it('counts usage per chunk shape: usage in the finish chunk, several tokens per chunk, no role chunk', async () => {
    const server = await startSseServer((req) =>
      req.path.startsWith('/v1/models')
        ? { headers: { 'content-type': 'application/json' }, steps: ['{"data":[{"id":"m"}]}'] }
        : {
            headers: { 'content-type': 'text/event-stream' },
            steps: [
              sse(chatChunk({ content: 'one two three' })),
              sse({
                ...chatChunk({ content: ' four five', finish_reason: 'stop' }),
                usage: { prompt_tokens: 7, completion_tokens: 5, total_tokens: 12 },
              }),
              DONE,
            ],
          },
    );
    try {
      const io = memoryIo({}, tmp());
      assert.equal(
        await main(['run', '--url', server.baseUrl, '--requests', '2', '--no-db', '--json'], io),
        0,
      );
      const report = JSON.parse(io.out());
      assert.equal(report.summary.output_tokens.mean, 5);
      assert.equal(report.summary.usage_missing, 0);
      assert.equal(report.summary.outcomes.ok, 2);
      assert.deepEqual((usageChunk({}) as { choices: unknown[] }).choices, []);
    } finally {
      await server.close();
    }
  });
});
