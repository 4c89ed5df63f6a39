/**
 * The llama.cpp acceptance step, through the real CLI in-process (`main(argv, io)`): against the
 * simulator playing llama-server (`servelab sim --engine llamacpp`: `/tokenize` reads
 * `content`, the model name is ignored, and the user gives no `/v1`), `check` passes with a note
 * naming the model it serves, and `run` makes every prompt exactly `--input-len` tokens by the
 * server's own count.
 *
 * The simulated model's tokenizer (Qwen3's BPE) is not servelab's approximation, and the client
 * is given a model name it has no offline tokenizer for, so these counts can only come out right
 * through `/tokenize`. What "exact" means is the prompt text: usage `prompt_tokens` is exactly
 * `--input-len` on /v1/completions, and exactly `--input-len` plus the chat template's tokens on
 * /v1/chat/completions (as with vLLM's random prompts, the template is not part of the count).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { type SimServer, startSimServer } from '../../src/sim/server/index.js';
import { chatPromptIds } from '../../src/sim/server/prompt-tokens.js';
import { tokenizerFor } from '../../src/tokenizer/index.js';
import '../helpers/node-warnings.js';

/** The name the simulated llama-server serves its model under (a GGUF file's stem, as llama-server reports it). */
const GGUF_MODEL = 'gguf-model';

/** Start the simulator as llama-server: qwen3-8b served as {@link GGUF_MODEL}. */
function startLlamaSim(): Promise<SimServer> {
  return startSimServer(
    {
      engine: 'llamacpp',
      model: 'qwen3-8b',
      gpu: 'h100',
      servedModelName: GGUF_MODEL,
      timeScale: 20,
      port: 0,
    },
    { log: () => {} },
  );
}

/** Tokens the chat template adds around one user message (the simulator's template and tokenizer). */
async function templateOverhead(): Promise<number> {
  const tok = await tokenizerFor('qwen3-8b');
  return (
    chatPromptIds((t) => tok.encode(t), [{ role: 'user', content: 'x' }]).length - tok.encode('x').length
  );
}

/** A proxy to `target` that passes everything but `/tokenize` (404), as one that passes only /v1. */
async function withoutTokenize(target: string): Promise<{ root: string; close(): Promise<void> }> {
  const t = new URL(target);
  const srv: Server = createServer((req, res) => {
    if ((req.url ?? '').startsWith('/tokenize')) {
      req.resume();
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":404}}');
      return;
    }
    const up = request(
      { host: t.hostname, port: t.port, path: req.url, method: req.method, headers: req.headers },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    req.pipe(up);
  });
  await new Promise<void>((ok) => srv.listen(0, '127.0.0.1', ok));
  return {
    root: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`,
    close: () => new Promise<void>((ok) => srv.close(() => ok())),
  };
}

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

describe('against the simulator playing llama.cpp (no /v1 given, model name ignored)', () => {
  let sim: SimServer;
  let overhead: number;
  const srv = { root: '' };
  before(async () => {
    sim = await startLlamaSim();
    srv.root = sim.url;
    overhead = await templateOverhead();
  });
  after(async () => {
    await sim.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('check passes, says it added /v1, notes the ignored model name and finds /tokenize', async () => {
    const io = memoryIo({}, tmp());
    const code = await main(['check', '--url', srv.root, '--model', 'some-other-name'], io);
    const out = io.out();
    assert.equal(code, 0, `${out}\n${io.err()}`);
    assert.match(io.err(), new RegExp(`^base URL: ${srv.root}/v1 \\(added /v1\\)$`, 'm'));
    assert.match(out, new RegExp(`^servelab check ${srv.root}/v1$`, 'm'));
    assert.match(out, /^ {2}engine +llamacpp \(owned_by llamacpp\)$/m);
    assert.match(
      out,
      /^ {2}- the server ignores the model name and serves gguf-model \(some-other-name is not listed, yet the probe streamed\)$/m,
    );
    assert.match(out, /hint: send one of the listed names .*--model gguf-model/);
    assert.match(out, /\/tokenize yes/);
    assert.match(out, /timings yes/);
    // As llama-server started with --metrics (as ../shared/llamacpp/start.sh starts it).
    assert.match(out, /\/metrics yes/);
    assert.match(out, /^result: OK$/m);
    assert.ok(!/^problems:/m.test(out), out);
  });

  it('run sizes chat prompts with the server /tokenize: exactly --input-len, plus the template', async () => {
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

    const recs = records(dir);
    assert.equal(recs.length, 5);
    for (const r of recs) {
      assert.equal(r.outcome, 'ok');
      assert.equal(r.input_len, 64);
      // usage counts the whole templated prompt, cached tokens included
      assert.equal(r.usage?.prompt_tokens, 64 + overhead);
      assert.equal(r.usage?.completion_tokens, 8);
      assert.equal(typeof r.usage?.cached_tokens, 'number');
      assert.equal(r.timings?.prompt_n, 64 + overhead - (r.usage?.cached_tokens as number));
    }
    assert.match(out, new RegExp(`^ {2}input +${64 + overhead}\\.0$`, 'm'));
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
    const bare = await withoutTokenize(sim.url);
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
