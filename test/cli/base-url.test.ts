/**
 * Base URLs with or without `/v1`: `run` and `check` take a bare `http://host:port` (what a user
 * might paste), add `/v1` and say so on stderr; another path is used as given, and a wrong one
 * fails with a message naming the URL really fetched. `sim` prints the base URL with `/v1`.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { withV1, withV1Note } from '../../src/core/url.js';
import { type SimServer, startSimServer } from '../../src/sim/server/index.js';
import '../helpers/node-warnings.js';

const dir = mkdtempSync(join(tmpdir(), 'servelab-base-url-'));
let sim: SimServer;
before(async () => {
  sim = await startSimServer({ model: 'llama-3.1-8b', gpu: 'h100', port: 0, timeScale: 50 });
});
after(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('withV1', () => {
  it('adds /v1 to a bare origin only; other paths lose trailing slashes and are kept', () => {
    assert.deepEqual(withV1('http://h:1'), { url: 'http://h:1/v1', added: true });
    assert.deepEqual(withV1('http://h:1/'), { url: 'http://h:1/v1', added: true });
    assert.deepEqual(withV1('https://h?k=1'), { url: 'https://h/v1?k=1', added: true });
    assert.deepEqual(withV1('http://h:1/v1/'), { url: 'http://h:1/v1', added: false });
    assert.deepEqual(withV1('http://h:1/openai/v1'), { url: 'http://h:1/openai/v1', added: false });
    assert.deepEqual(withV1('http://h:1/api'), { url: 'http://h:1/api', added: false });
    assert.equal(withV1Note(withV1('http://u:pw@h:1')), 'base URL: http://h:1/v1 (added /v1)');
    assert.equal(withV1Note(withV1('http://h:1/v1')), null);
  });

  it('takes an OpenAI endpoint path off the end: the base URL is what API paths go under', () => {
    const chat = { url: 'http://h:1/v1', added: false, trimmed: '/chat/completions' };
    assert.deepEqual(withV1('http://h:1/v1/chat/completions'), chat);
    assert.deepEqual(withV1('http://h:1/v1/chat/completions/'), chat);
    assert.deepEqual(withV1('http://h:1/v1/completions?k=1'), {
      url: 'http://h:1/v1?k=1',
      added: false,
      trimmed: '/completions',
    });
    assert.deepEqual(withV1('http://h:1/openai/v1/models'), {
      url: 'http://h:1/openai/v1',
      added: false,
      trimmed: '/models',
    });
    assert.deepEqual(withV1('http://h:1/chat/completions'), {
      url: 'http://h:1/v1',
      added: true,
      trimmed: '/chat/completions',
    });
    // a host named like an endpoint is a host
    assert.deepEqual(withV1('http://models:8000'), { url: 'http://models:8000/v1', added: true });
    assert.equal(
      withV1Note(withV1('http://u:pw@h:1/v1/chat/completions')),
      'base URL: http://h:1/v1 (took off /chat/completions: --url is the base URL, servelab adds each API path to it)',
    );
  });
});

describe('--url without /v1', () => {
  it('check: succeeds against the simulator and says /v1 was added', async () => {
    const io = memoryIo({}, dir);
    const code = await main(['check', '--url', sim.url, '--json'], io);
    assert.equal(code, 0, io.err());
    assert.match(io.err(), new RegExp(`^base URL: ${sim.url}/v1 \\(added /v1\\)$`, 'm'));
    const result = JSON.parse(io.out());
    assert.equal(result.base_url, `${sim.url}/v1`);
    assert.equal(result.ok, true);
  });

  it('run: succeeds against the simulator and says /v1 was added', async () => {
    const io = memoryIo({}, dir);
    const code = await main(
      ['run', '--url', `${sim.url}/`, '--prompt', 'hi', '--output-len', '8', '--requests', '2'].concat([
        '--no-db',
        '--no-scrape',
        '--json',
      ]),
      io,
    );
    assert.equal(code, 0, io.err());
    assert.match(io.err(), new RegExp(`^base URL: ${sim.url}/v1 \\(added /v1\\)$`, 'm'));
    const report = JSON.parse(io.out());
    assert.equal(report.summary.requests.succeeded, 2);
    assert.equal(report.config.target.url, `${sim.url}/v1`);
  });

  it('check: a pasted …/v1/chat/completions asks …/v1/models, and says what it took off', async () => {
    const io = memoryIo({}, dir);
    const code = await main(['check', '--url', `${sim.url}/v1/chat/completions`, '--json'], io);
    assert.equal(code, 0, io.out() + io.err());
    assert.match(io.err(), /^base URL: .*\/v1 \(took off \/chat\/completions: /m);
    assert.doesNotMatch(io.out() + io.err(), /completions\/models/);
    const result = JSON.parse(io.out());
    assert.equal(result.base_url, `${sim.url}/v1`);
    assert.equal(result.ok, true);
  });

  it('a URL ending in /v1 is used as given, with no note', async () => {
    const io = memoryIo({}, dir);
    assert.equal(await main(['check', '--url', `${sim.url}/v1`], io), 0, io.err());
    assert.doesNotMatch(io.err(), /added \/v1/);
  });

  it('another path is used as given; the 404 names the URL fetched and hints at /v1', async () => {
    const io = memoryIo({}, dir);
    const code = await main(['check', '--url', `${sim.url}/api`], io);
    assert.notEqual(code, 0);
    const text = io.out() + io.err();
    assert.doesNotMatch(text, /added \/v1/);
    assert.match(text, new RegExp(`GET ${sim.url}/api/models returned 404`));
    assert.doesNotMatch(text, /GET \/v1\/models/);
    assert.match(text, /--url ends in \/v1/);
  });
});

describe('servelab sim', () => {
  it('prints its OpenAI base URL with /v1; --json agrees', async () => {
    const io = memoryIo({}, dir);
    const done = main(['sim', '--model', 'qwen3-0.6b', '--port', '0', '--json'], io);
    for (let i = 0; i < 400 && !io.out().includes('}'); i++) await new Promise((r) => setTimeout(r, 25));
    const m = /^listening on (http:\/\/127\.0\.0\.1:\d+)\/v1 \(OpenAI base URL\)$/m.exec(io.err());
    assert.ok(m, io.err());
    const info = JSON.parse(io.out());
    assert.equal(info.url, m[1]);
    assert.equal(info.base_url, `${m[1]}/v1`);
    // The printed URL is what check --url takes.
    const check = memoryIo({}, dir);
    assert.equal(await main(['check', '--url', info.base_url], check), 0, check.err());
    io.interrupt();
    assert.equal(await done, 130);
  });
});
