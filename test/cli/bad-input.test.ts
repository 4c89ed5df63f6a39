/**
 * No stack trace for any user mistake, and no lost output.
 *
 * 1. Every command, fed a bad path (a missing file, an output path that cannot be written), a
 *    bad file (not a database for --db, truncated or foreign report.json, a YAML experiment with
 *    bad content, a JSONL file with a bad line) or a bad URL (not a URL, not http, nothing
 *    listening), exits 1 or 3 with a message and a `hint:` line and no stack. In-process through
 *    `main(argv, io)`, so the whole table takes about a second. A test reads the command list
 *    from `servelab --help`, so a new command without a row fails.
 * 2. A closed stdout (`| head -1`) costs console lines, never a file, and the exit code is the
 *    command's: real processes, whose stdout the test closes after the first line or at once.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { assertNoNodeWarning } from '../helpers/node-warnings.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'servelab-bad-input-'));
const REFUSED = 'http://127.0.0.1:1'; // nothing listens on port 1: connection refused at once
let busy: Server;
let busyPort = 0;
let runId = '';

/**
 * Two quick report.json files (a/, b/) and a store with one run, in virtual time. A fixed
 * prompt needs no token counting, so no tokenizer is loaded (a second less per process).
 */
const PLAN = ['plan', '--requests', '8', '--concurrency', '2', '--prompt', 'hello', '--output-len', '8'];

before(async () => {
  for (const [name, seed] of [
    ['a', '1'],
    ['b', '2'],
  ]) {
    const io = memoryIo({}, dir);
    assert.equal(await main([...PLAN, '--no-db', '--seed', seed, '--out', name], io), 0, io.err());
  }
  const io = memoryIo({}, dir);
  assert.equal(await main([...PLAN, '--db', 'store.db'], io), 0, io.err());
  runId = /\(run (\w+)\)/.exec(io.out())?.[1] ?? '';
  assert.ok(runId, io.out());

  const good = JSON.parse(readFileSync(join(dir, 'a', 'report.json'), 'utf8'));
  const write = (name: string, text: string) => writeFileSync(join(dir, name), text);
  write('not-a-database.db', '{"a": 1}\n');
  write('truncated.json', JSON.stringify(good).slice(0, 300));
  write('v99.json', JSON.stringify({ ...good, schema_version: 99 }));
  write('kind-report.json', JSON.stringify({ ...good, kind: 'report' }));
  write('empty-summary.json', JSON.stringify({ ...good, summary: {} }));
  write('bad-line.jsonl', '{"prompt": "hi"}\n{not json\n');
  write('bad-syntax.yaml', 'kind: baseline\n: : :\n  - [\n');
  // An alias bomb: five levels of ten aliases each expand to 100,000 nodes (yaml refuses past 100 aliases).
  write(
    'alias-bomb.yaml',
    [
      'a: &a [x,x,x,x,x,x,x,x,x,x]',
      'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]',
      'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]',
      'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]',
      'e: [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]',
    ].join('\n'),
  );
  write('bad-fields.yaml', 'kind: baseline\ntarget: 5\n');
  write('a-file', 'not a folder\n');
  mkdirSync(join(dir, 'a-dir'));
  const exp = (url: string) =>
    `kind: baseline\nname: b\ntargets:\n  t: {url: "${url}"}\nmodel: m\nworkload: {input_len: 16, output_len: 4}\nload: {concurrency: 1, requests: 2}\n`;
  write('url-notaurl.yaml', exp('notaurl'));
  write('url-ftp.yaml', exp('ftp://x'));
  write('url-refused.yaml', exp(`${REFUSED}/v1`));

  busy = createServer();
  await new Promise<void>((res) => busy.listen(0, '127.0.0.1', res));
  busyPort = (busy.address() as { port: number }).port;
});
after(async () => {
  await new Promise((res) => busy?.close(res));
  if (!process.env.KEEP) rmSync(dir, { recursive: true, force: true });
});

interface Row {
  argv: string[];
  /** What the message must say. */
  says: RegExp;
  /** 1 (usage) unless the target could not be reached (3). */
  code?: 1 | 3;
}

/** `run` with a model given, so the rows that fail later than /v1/models get there. */
const RUN = ['run', '--url', REFUSED, '--model', 'm', '--requests', '2', '--no-db'];
const THRESHOLD = ['--threshold', 'ttft_ms.p99<+10%'];

// `$RUN` and `$BUSY` are filled in once the store and the busy port exist.
const ROWS: Row[] = [
  // voice
  { argv: ['voice', '--llm-url', 'notaurl'], says: /--llm-url: not an http\(s\) URL: "notaurl"/ },
  {
    argv: ['voice', '--llm-url', REFUSED, '--tts-chunk', 'paragraph', '--tts-format', 'mp3'],
    says: /--tts-chunk: unknown TTS chunk policy paragraph[\s\S]*--tts-format: unknown TTS format mp3/,
  },
  { argv: ['voice', '--llm-url', REFUSED, '--audio', 'a-dir'], says: /--audio: no \.wav files in/ },
  {
    argv: [
      'voice',
      '--llm-url',
      REFUSED,
      '--model',
      'm',
      '--speech-seconds',
      '1',
      '--requests',
      '1',
      '--endpoint-ms',
      '0',
    ],
    says: /1 failed at asr, e\.g\. .*ECONNREFUSED[\s\S]*hint: is the server running on 127\.0\.0\.1:1\?/,
    code: 3,
  },
  { argv: ['demo', 'nope'], says: /unknown demo nope/ },
  // run
  { argv: ['run', '--url', 'notaurl', '--no-db'], says: /--url: not an http\(s\) URL: "notaurl"/ },
  { argv: ['run', '--url', 'ftp://x', '--no-db'], says: /--url: not an http\(s\) URL: "ftp:\/\/x"/ },
  {
    argv: ['run', '--url', REFUSED, '--no-db'],
    says: /cannot reach .*\/models: ECONNREFUSED[\s\S]*is the server running on 127\.0\.0\.1:1\?/,
    code: 3,
  },
  { argv: RUN, says: /connect ECONNREFUSED[\s\S]*hint: is the server running on 127\.0\.0\.1:1\?/, code: 3 },
  { argv: [...RUN, '--scrape', 'notaurl'], says: /--scrape: not an http\(s\) URL/ },
  { argv: [...RUN, '--prompts', 'missing.jsonl'], says: /missing\.jsonl: no such file/ },
  { argv: [...RUN, '--prompts', 'bad-line.jsonl'], says: /bad-line\.jsonl:2: invalid JSON/ },
  { argv: [...RUN, '--trace', 'bad-line.jsonl'], says: /bad-line\.jsonl:2: invalid JSON/ },
  { argv: [...RUN.slice(0, -1), '--db', 'not-a-database.db'], says: /--db: .* is not a servelab store/ },
  {
    argv: [...RUN, '--baseline', 'truncated.json', ...THRESHOLD],
    says: /--baseline: .*truncated\.json is not a servelab report\.json/,
  },
  {
    argv: [...RUN, '--baseline', 'v99.json', ...THRESHOLD],
    says: /schema_version 99; this servelab reads version 1/,
  },
  { argv: [...RUN, '--out', 'a-file'], says: /--out: .*a-file is a file, not a directory/ },
  { argv: [...RUN, '--json', 'a-dir'], says: /--json: .*a-dir is a directory/ },
  {
    argv: [...RUN, '--metrics-port', '$BUSY'],
    says: /--metrics-port: cannot listen on 127\.0\.0\.1:\d+ \(in use\)/,
  },
  { argv: [...RUN, '--shard', '3/3'], says: /--shard: not a shard i\/N with 0 ≤ i < N \(got 3\/3\)/ },
  {
    argv: [...RUN, '--shard', '1/3'],
    says: /--start-at: a run split over more than one shard needs a common start/,
  },
  {
    argv: [...RUN, '--shard', '1/3', '--start-at', 'soon'],
    says: /--start-at: not an RFC 3339 time: "soon"/,
  },
  // merge
  {
    argv: ['merge', '--expect', '3', 'missing.json', '--out', 'm'],
    says: /cannot read .*missing\.json: ENOENT/,
  },
  { argv: ['merge', '--expect', '3', 'v99.json', '--out', 'm'], says: /v99\.json is not a shard report/ },
  { argv: ['merge', '--expect', 'x', 'v99.json', '--out', 'm'], says: /--expect/ },
  // k8s render
  { argv: ['k8s', 'render', '--shards', '3'], says: /needs a common start/ },
  { argv: ['k8s', 'render', '--shards', '0', '--start-in', '5'], says: /--shards/ },
  // check
  { argv: ['check', '--url', 'notaurl'], says: /--url: not an http\(s\) URL/ },
  { argv: ['check', '--url', 'ftp://x'], says: /--url: not an http\(s\) URL/ },
  {
    argv: ['check', '--url', REFUSED],
    says: /connection refused at 127\.0\.0\.1:1[\s\S]*is the server running on 127\.0\.0\.1:1\?/,
    code: 3,
  },
  {
    argv: ['check', '--url', REFUSED, '--json', 'a-dir'],
    says: /--json: .*a-dir is a directory/,
  },
  // gate
  { argv: ['gate', '--old', 'notaurl', '--new', REFUSED], says: /--old: not an http\(s\) URL/ },
  { argv: ['gate', '--new', REFUSED], says: /--old: is required/ },
  {
    argv: ['gate', '--url', REFUSED, '--checks', 'nope'],
    says: /--checks: unknown check, group or number "nope"/,
  },
  {
    argv: ['gate', '--url', REFUSED, '--probe', '--duration', 'soon'],
    says: /--duration: not a duration: "soon"/,
  },
  {
    argv: ['gate', '--old', REFUSED, '--new', REFUSED],
    says: /old target http:\/\/127\.0\.0\.1:1\/v1 is unreachable: GET \/v1\/models: .*ECONNREFUSED/,
    code: 3,
  },
  { argv: ['gate', '--url', REFUSED, '--junit', 'a-dir'], says: /--junit: .*a-dir is a directory/ },
  // plan
  { argv: ['plan', '--no-db', '--prompts', 'missing.jsonl'], says: /missing\.jsonl: no such file/ },
  { argv: ['plan', '--no-db', '--prompts', 'bad-line.jsonl'], says: /bad-line\.jsonl:2: invalid JSON/ },
  { argv: ['trace', 'stats', 'bad-line.jsonl'], says: /bad-line\.jsonl:2: invalid JSON/ },
  { argv: ['trace', 'stats', 'missing.csv'], says: /missing\.csv: no such file/ },
  { argv: ['plan', '--db', 'not-a-database.db'], says: /is not a servelab store/ },
  {
    argv: ['plan', '--no-db', '--catalogue', 'missing.yaml'],
    says: /missing\.yaml: cannot read catalogue file \(ENOENT\)/,
  },
  { argv: ['plan', '--no-db', '--catalogue', 'bad-syntax.yaml'], says: /bad-syntax\.yaml: not valid YAML/ },
  // A YAML alias bomb in a catalogue and in a calibration profile: one clear error, no stack.
  {
    argv: ['plan', '--no-db', '--catalogue', 'alias-bomb.yaml'],
    says: /alias-bomb\.yaml: its YAML aliases expand too far/,
  },
  {
    argv: ['sim', '--profile', 'alias-bomb.yaml'],
    says: /alias-bomb\.yaml: its YAML aliases expand too far/,
  },
  { argv: ['plan', '--no-db', '--baseline', 'v99.json', ...THRESHOLD], says: /schema_version 99/ },
  { argv: ['plan', '--no-db', '--out', 'a-file'], says: /--out: .*a-file is a file, not a directory/ },
  {
    argv: ['plan', '--no-db', '--json', 'a-file/x.json'],
    says: /--json: cannot create .*x\.json: .*a-file is a file/,
  },
  // demo (refused before the simulator starts)
  { argv: ['demo', '--out', 'a-file'], says: /--out: .*a-file is a file, not a directory/ },
  { argv: ['demo', '--json', 'a-dir'], says: /--json: .*a-dir is a directory/ },
  // sim
  { argv: ['sim', '--catalogue', 'missing.yaml'], says: /cannot read catalogue file \(ENOENT\)/ },
  { argv: ['sim', '--catalogue', 'bad-fields.yaml'], says: /bad-fields\.yaml: .*Unrecognized keys/ },
  { argv: ['sim', '--port', '99999'], says: /--port: expected an integer from 0 to 65535/ },
  { argv: ['sim', '--port', '$BUSY'], says: /--port: cannot listen on 127\.0\.0\.1:\d+ \(EADDRINUSE\)/ },
  { argv: ['sim', '--port', '0', '--json', 'a-dir'], says: /--json: .*a-dir is a directory/ },
  // report
  { argv: ['report', 'missing.json'], says: /missing\.json: no such file/ },
  {
    argv: ['report', 'truncated.json'],
    says: /truncated\.json: not valid JSON \(.*\): is the file truncated\?/,
  },
  { argv: ['report', 'v99.json'], says: /v99\.json: schema_version 99; this servelab reads version 1/ },
  { argv: ['report', 'kind-report.json'], says: /kind "report", not a run's report/ },
  { argv: ['report', 'empty-summary.json'], says: /summary\.requests is not/ },
  { argv: ['report', 'abc', '--db', 'not-a-database.db'], says: /is not a servelab store/ },
  { argv: ['report', 'abc', '--db', 'missing.db'], says: /--db: no store at/ },
  { argv: ['report', 'a/report.json', '--html', 'a-dir'], says: /--html: .*a-dir is a directory/ },
  {
    argv: ['report', 'a/report.json', '--md', 'a-file/r.md'],
    says: /--md: cannot create .*a-file is a file/,
  },
  { argv: ['report', 'a/report.json', '--gpu-hour-usd', 'abc'], says: /--gpu-hour-usd: expected a price/ },
  // calibrate
  { argv: ['calibrate', 'missing.json'], says: /missing\.json: no such file/ },
  { argv: ['calibrate', 'abc', '--db', 'missing.db'], says: /--db: no store at/ },
  { argv: ['calibrate', 'a/report.json', '--out', 'a-dir'], says: /--out: .*a-dir is a directory/ },
  {
    argv: ['calibrate', 'a/report.json', '--model', 'qwen3-0.6b'],
    says: /--gpu: the runs do not say which gpu/,
  },
  {
    argv: ['calibrate', 'a/report.json', '--model', 'qwen3-0.6b', '--gpu', 'h100'],
    says: /undetermined: no prefill-length variation/,
  },
  { argv: ['plan', '--profile', 'missing.yaml', '--no-db'], says: /no such profile file/ },
  { argv: ['plan', '--profile', 'bad-fields.yaml', '--no-db'], says: /bad-fields\.yaml: .*servelab_profile/ },
  // diagnose
  { argv: ['diagnose', 'missing.json'], says: /missing\.json: no such file/ },
  { argv: ['diagnose', 'v99.json'], says: /schema_version 99/ },
  { argv: ['diagnose', 'abc', '--db', 'not-a-database.db'], says: /is not a servelab store/ },
  { argv: ['diagnose', 'a/report.json', '--json', 'a-dir'], says: /--json: .*a-dir is a directory/ },
  // dashboard
  { argv: ['dashboard', '--db', 'not-a-database.db', '--port', '0'], says: /is not a servelab store/ },
  { argv: ['dashboard', '--db', 'missing.db', '--port', '0'], says: /--db: no store at/ },
  {
    argv: ['dashboard', '--db', 'store.db', '--port', '$BUSY'],
    says: /--port: port \d+ on 127\.0\.0\.1 is in use/,
  },
  // exp init / run / rerun / list
  { argv: ['exp', 'init', 'nope'], says: /exp init: unknown kind "nope"/ },
  { argv: ['exp', 'init', 'baseline', 'a-file/x.yaml'], says: /exp init: cannot write/ },
  { argv: ['exp', 'run', 'missing.yaml', '--no-db'], says: /missing\.yaml: no such file/ },
  { argv: ['exp', 'run', 'bad-syntax.yaml', '--no-db'], says: /bad-syntax\.yaml: YAML syntax/ },
  { argv: ['exp', 'run', 'bad-fields.yaml', '--no-db'], says: /bad-fields\.yaml: target: unknown field/ },
  { argv: ['exp', 'run', 'truncated.json', '--no-db'], says: /truncated\.json: YAML syntax/ },
  {
    argv: ['exp', 'run', 'url-notaurl.yaml', '--no-db'],
    says: /targets\.t\.url: expected an http:\/\/ or https:\/\/ URL/,
  },
  {
    argv: ['exp', 'run', 'url-ftp.yaml', '--no-db'],
    says: /targets\.t\.url: expected an http:\/\/ or https:\/\/ URL/,
  },
  {
    argv: ['exp', 'run', 'url-refused.yaml', '--no-db'],
    says: /targets\.t: cannot reach http:\/\/127\.0\.0\.1:1[\s\S]*is the server running on 127\.0\.0\.1:1\?/,
  },
  { argv: ['exp', 'run', 'url-refused.yaml', '--db', 'not-a-database.db'], says: /is not a servelab store/ },
  {
    argv: ['exp', 'run', 'url-refused.yaml', '--no-db', '--json', 'a-dir'],
    says: /--json: .*a-dir is a directory/,
  },
  { argv: ['exp', 'rerun', 'abc', '--db', 'not-a-database.db'], says: /is not a servelab store/ },
  { argv: ['exp', 'rerun', 'abc', '--db', 'missing.db'], says: /--db: no store at/ },
  { argv: ['exp', 'rerun', 'nope', '--db', 'store.db'], says: /nope: no such experiment/ },
  { argv: ['exp', 'list', '--db', 'not-a-database.db'], says: /is not a servelab store/ },
  { argv: ['exp', 'list', '--db', 'missing.db'], says: /--db: no store at/ },
  { argv: ['exp', 'list', '--db', 'store.db', '--json', 'a-dir'], says: /--json: .*a-dir is a directory/ },
  // runs list / show / export
  { argv: ['runs', 'list', '--db', 'not-a-database.db'], says: /is not a servelab store/ },
  { argv: ['runs', 'list', '--db', 'missing.db'], says: /--db: no store at/ },
  { argv: ['runs', 'list', '--db', 'store.db', '--json', 'a-dir'], says: /--json: .*a-dir is a directory/ },
  { argv: ['runs', 'show', 'abc', '--db', 'not-a-database.db'], says: /is not a servelab store/ },
  { argv: ['runs', 'show', 'nope', '--db', 'store.db'], says: /nope: no such run/ },
  { argv: ['runs', 'export', 'abc', '--db', 'missing.db'], says: /--db: no store at/ },
  {
    argv: ['runs', 'export', '$RUN', '--db', 'store.db', '--format', 'xml'],
    says: /--format: unknown format "xml"/,
  },
  {
    argv: ['runs', 'export', '$RUN', '--db', 'store.db', '--out', 'a-dir'],
    says: /--out: .*a-dir is a directory/,
  },
];

const fill = (argv: string[]) =>
  argv.map((a) => (a === '$BUSY' ? String(busyPort) : a === '$RUN' ? runId : a));

/** The three promises of a user error: exit 1 or 3, a message with a hint, no stack. */
function assertUserError(code: number, output: string, row: Row): void {
  assert.ok(code === 1 || code === 3, `exit ${code}, expected 1 or 3\n${output}`);
  if (row.code !== undefined) assert.equal(code, row.code, output);
  assert.match(output, row.says);
  assert.match(output, /^\s+hint: \S/m, `no hint line\n${output}`);
  assert.doesNotMatch(output, /internal error/, output);
  assert.doesNotMatch(output, /^\s+at /m, `a stack trace\n${output}`);
}

describe('a user mistake: exit 1 or 3, a message with a hint, no stack', () => {
  for (const row of ROWS)
    it(`${row.argv.join(' ')}`, async () => {
      const io = memoryIo({}, dir);
      const code = await main(fill(row.argv), io);
      assertUserError(code, `${io.err()}${io.out()}`, row);
    });

  it('the table has a row for every command in `servelab --help`', async () => {
    const commandsOf = async (argv: string[]) => {
      const io = memoryIo({}, dir);
      assert.equal(await main([...argv, '--help'], io), 0);
      const section = io.out().split('Commands:\n')[1] ?? '';
      return [...section.matchAll(/^ {2}(\w+)/gm)].map((m) => m[1]).filter((c) => c !== 'help');
    };
    const commands: string[] = [];
    for (const c of await commandsOf([])) {
      const subs = await commandsOf([c]);
      if (subs.length) commands.push(...subs.map((s) => `${c} ${s}`));
      else commands.push(c);
    }
    assert.ok(commands.length >= 15, commands.join(', '));
    const covered = new Set(ROWS.flatMap((r) => [r.argv[0], `${r.argv[0]} ${r.argv[1]}`]));
    assert.deepEqual(
      commands.filter((c) => !covered.has(c)),
      [],
      'commands with no bad-input row',
    );
  });
});

/** Spawn the CLI from source; `close` says when to close its stdout. */
function spawnCli(argv: string[], close: 'first-line' | 'at-once') {
  // tsx by its resolved URL: the child runs in the temp dir, where `--import tsx` finds no package.
  const tsx = import.meta.resolve('tsx');
  const child = spawn(process.execPath, ['--import', tsx, join(ROOT, 'test/helpers/cli-entry.ts'), ...argv], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  // Destroying our end of the pipe closes it: the child's next write gets EPIPE, as with `| head -1`.
  if (close === 'at-once') child.stdout.destroy();
  else
    child.stdout.on('data', (d) => {
      stdout += d;
      if (stdout.includes('\n')) child.stdout.destroy();
    });
  const code = new Promise<number | null>((res) => child.on('exit', (c) => res(c)));
  return { code, stderr: () => stderr, stdout: () => stdout };
}

function assertMarkdownComplete(mdPath: string): void {
  const md = readFileSync(mdPath, 'utf8');
  // Its own chart folder: `r.md` → `r.charts/`.
  const charts = [...md.matchAll(/\(([\w.-]+\.charts\/[^)]+\.svg)\)/g)].map((m) => m[1]);
  assert.ok(charts.length > 0, 'the write-up links its charts');
  for (const c of charts) {
    const svg = readFileSync(join(mdPath, '..', c), 'utf8');
    assert.match(svg.trimEnd(), /<\/svg>$/, c);
  }
}

describe('a closed stdout costs lines, never a file; the exit code is the command’s', {
  concurrency: true,
}, () => {
  it('report A B --html --md | head -1 writes both files in full, exit 0', async () => {
    const p = spawnCli(
      ['report', 'a/report.json', 'b/report.json', '--html', 'head1/r.html', '--md', 'head1/r.md'],
      'first-line',
    );
    assert.equal(await p.code, 0, p.stderr());
    assertNoNodeWarning(p.stderr());
    assert.doesNotMatch(p.stderr(), /internal error|EPIPE|^\s+at /m, p.stderr());
    assert.match(readFileSync(join(dir, 'head1/r.html'), 'utf8').trimEnd(), /<\/html>$/);
    assertMarkdownComplete(join(dir, 'head1/r.md'));
  });

  it('plan --out --json with stdout closed: report.json, requests.jsonl and the JSON in full, exit 0', async () => {
    const p = spawnCli(
      [...PLAN, '--no-db', '--out', 'plan-out', '--json', 'plan-out/result.json'],
      'at-once',
    );
    assert.equal(await p.code, 0, p.stderr());
    assertNoNodeWarning(p.stderr());
    assert.doesNotMatch(p.stderr(), /internal error|EPIPE|^\s+at /m, p.stderr());
    const report = JSON.parse(readFileSync(join(dir, 'plan-out/report.json'), 'utf8'));
    assert.equal(report.summary.requests.measured, 8);
    const lines = readFileSync(join(dir, 'plan-out/requests.jsonl'), 'utf8').trim().split('\n');
    assert.equal(lines.length, 8);
    assert.equal(
      JSON.parse(readFileSync(join(dir, 'plan-out/result.json'), 'utf8')).summary.requests.measured,
      8,
    );
    assert.ok(existsSync(join(dir, 'plan-out/summary.csv')));
  });
});
