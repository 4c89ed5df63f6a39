/**
 * The llama.cpp acceptance step, through the real CLI in-process (`main(argv, io)`): against a
 * loopback server that behaves like llama-server (`/tokenize` reads `content`, the model name
 * is ignored, and the user gives no `/v1`), `check` passes with a note naming the model it
 * serves, and `run` makes every prompt exactly `--input-len` tokens by the server's own count.
 *
 * The server's tokenizer disagrees with servelab's approximation (see test/helpers/llamacpp),
 * so these counts can only come out right through `/tokenize`. What "exact" means is the prompt
 * text: usage `prompt_tokens` is exactly `--input-len` on /v1/completions, and exactly
 * `--input-len` plus the chat template's tokens on /v1/chat/completions (as with vLLM's random
 * prompts, the template is not part of the count).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { approximatePieces } from '../../src/tokenizer/index.js';
import {
  CHATML_OVERHEAD,
  GGUF_MODEL,
  type LlamaCppLikeServer,
  llamaTokenize,
  startLlamaCppLike,
} from '../helpers/llamacpp.js';
import '../helpers/node-warnings.js';

const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'servelab-llamacpp-'));
  dirs.push(d);
  return d;
}

interface Rec {
  phase: string;
  outcome: string;
  input_len: number | null;
  usage: { prompt_tokens: number; completion_tokens: number; cached_tokens?: number } | null;
  timings: Record<string, unknown> | null;
}

function records(dir: string): Rec[] {
  return readFileSync(join(dir, 'out', 'requests.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Rec);
}

/** The user text of each generation request the server received on `path`. */
function sentTexts(srv: LlamaCppLikeServer, path: string): string[] {
  return srv.requests
    .filter((q) => q.method === 'POST' && q.path === path)
    .map((q) => {
      const b = q.body ?? {};
      return Array.isArray(b.messages)
        ? (b.messages as { content: string }[]).map((m) => m.content).join('')
        : String(b.prompt);
    });
}

describe('against a llama.cpp-like server (no /v1 given, model name ignored)', () => {
  let srv: LlamaCppLikeServer;
  before(async () => {
    srv = await startLlamaCppLike();
  });
  after(async () => {
    await srv.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('check passes, says it added /v1, notes the ignored model name and finds /tokenize', async () => {
    const io = memoryIo({}, tmp());
    const code = await main(['check', '--url', srv.root, '--model', 'some-other-name'], io);
    const out = io.out();
    assert.equal(code, 0, `${out}\n${io.err()}`);
    assert.match(io.err(), new RegExp(`^base URL: ${srv.root}/v1 \\(added /v1\\)$`, 'm'));
    assert.match(out, new RegExp(`^servelab check ${srv.root}/v1$`, 'm'));
    assert.ok(srv.requests.some((q) => q.method === 'GET' && q.path === '/v1/models'));
    assert.match(out, /^ {2}engine +llamacpp \(owned_by llamacpp\)$/m);
    assert.match(
      out,
      /^ {2}- the server ignores the model name and serves gguf-model \(some-other-name is not listed, yet the probe streamed\)$/m,
    );
    assert.match(out, /hint: send one of the listed names .*--model gguf-model/);
    assert.match(out, /\/tokenize yes/);
    assert.match(out, /timings yes/);
    // llama-server answers /metrics only when started with --metrics: the hint says so.
    assert.match(out, /\/metrics no/);
    assert.match(out, /llama\.cpp: --metrics/);
    assert.match(out, /^result: OK$/m);
    assert.ok(!/^problems:/m.test(out), out);
    const chats = srv.requests.filter((q) => q.path === '/v1/chat/completions');
    assert.ok(chats.length >= 1 && chats.every((q) => q.body?.model === 'some-other-name'));
  });

  it('run sizes chat prompts with the server /tokenize: exactly --input-len, plus the template', async () => {
    const from = srv.requests.length;
    const dir = tmp();
    const io = memoryIo({}, dir);
    const code = await main(
      // --ignore-eos: every answer runs to its 8 tokens (sent only when asked, as vllm bench serve).
      [
        'run',
        '--url',
        srv.root,
        '--model',
        'm',
        '--input-len',
        '64',
        '--output-len',
        '8',
        '--ignore-eos',
      ].concat(['--requests', '5', '--no-db', '--out', 'out']),
      io,
    );
    const out = io.out();
    assert.equal(code, 0, `${out}\n${io.err()}`);
    assert.match(out, /^tokenization: the server's \/tokenize \(exact\)$/m);
    const report = JSON.parse(readFileSync(join(dir, 'out', 'report.json'), 'utf8'));
    assert.equal(report.config.workload.tokenization, 'server_tokenize');
    assert.equal(report.config.workload.inexact, 0);

    // The prompts were counted by the server's /tokenize, in llama.cpp's shape (`content`).
    const tokenize = srv.requests.slice(from).filter((q) => q.path === '/tokenize');
    assert.ok(tokenize.length >= 5, `${tokenize.length} /tokenize requests`);
    assert.ok(tokenize.every((q) => typeof q.body?.content === 'string' && q.body?.add_special === false));

    // Each prompt text is 64 tokens by the server's tokenizer, and would not be by the approximation.
    const texts = sentTexts(srv, '/v1/chat/completions').slice(-5);
    assert.equal(texts.length, 5);
    for (const t of texts) assert.equal(llamaTokenize(t).length, 64, t);
    assert.ok(
      texts.some((t) => approximatePieces(t).length !== 64),
      'the approximation agrees here, so this test cannot tell it from /tokenize',
    );

    const recs = records(dir);
    assert.equal(recs.length, 5);
    for (const r of recs) {
      assert.equal(r.outcome, 'ok');
      assert.equal(r.input_len, 64);
      // usage counts the whole templated prompt, cached tokens included
      assert.equal(r.usage?.prompt_tokens, 64 + CHATML_OVERHEAD);
      assert.equal(r.usage?.completion_tokens, 8);
      assert.equal(typeof r.usage?.cached_tokens, 'number');
      assert.equal(r.timings?.prompt_n, 64 + CHATML_OVERHEAD - (r.usage?.cached_tokens as number));
    }
    assert.match(out, new RegExp(`^ {2}input +${64 + CHATML_OVERHEAD}\\.0$`, 'm'));
  });

  it('run on /v1/completions without --model: usage.prompt_tokens is exactly each --input-len', async () => {
    const dir = tmp();
    const io = memoryIo({}, dir);
    const code = await main(
      ['run', '--url', srv.root, '--endpoint', 'completions', '--input-len', 'uniform:20-200'].concat(
        ['--shared-prefix-len', '16', '--num-prefix-groups', '2', '--output-len', '4'],
        ['--requests', '12', '--concurrency', '3', '--no-db', '--out', 'out'],
      ),
      io,
    );
    const out = io.out();
    assert.equal(code, 0, `${out}\n${io.err()}`);
    assert.match(out, new RegExp(`^servelab run: ${srv.root}/v1 model ${GGUF_MODEL}, seed \\d+$`, 'm'));
    assert.match(out, /^tokenization: the server's \/tokenize \(exact\)$/m);
    const recs = records(dir);
    assert.equal(recs.length, 12);
    assert.ok(new Set(recs.map((r) => r.input_len)).size > 1, 'lengths vary');
    for (const r of recs) {
      assert.equal(r.outcome, 'ok');
      assert.equal(r.usage?.prompt_tokens, r.input_len);
    }
  });

  it('without /tokenize and an offline tokenizer, run says it approximated, how far off that is, and why', async () => {
    const bare = await startLlamaCppLike({ tokenize: false });
    try {
      const dir = tmp();
      const io = memoryIo({}, dir);
      const code = await main(
        ['run', '--url', bare.root, '--model', 'm', '--input-len', '64', '--output-len', '4'].concat([
          '--requests',
          '2',
          '--no-db',
          '--out',
          'out',
        ]),
        io,
      );
      const out = io.out();
      assert.equal(code, 0, `${out}\n${io.err()}`);
      assert.match(
        out,
        /^tokenization: the approximation \(synthetic prompts exact; English prose about \+10%/m,
      );
      assert.match(
        out,
        /^ {2}prompt lengths are approximate: no offline tokenizer for model m, and the server's \/tokenize did not answer$/m,
      );
    } finally {
      await bare.close();
    }
  });
});
