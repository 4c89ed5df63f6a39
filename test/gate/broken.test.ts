/**
 * No gate check passes vacuously: for each check, a purpose-built loopback server (a proxy in
 * front of a simulator that breaks exactly what the check tests, in ways the simulator itself
 * cannot) makes that check fail. Checks that compare with the old version run as a diff (old: the
 * simulator, new: the proxy); the others as a conformance report on the proxy.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, test } from 'node:test';
import { request } from 'undici';
import { ALL_CHECKS } from '../../src/gate/checks/index.js';
import { chatChunk, DONE, sse } from '../helpers/misbehaving.js';
import { gate, rowsOf, startGateSim } from './helpers.js';

const sim = await startGateSim();
const L = 2048;

/** What a breaker may change: the request on its way in, the response on its way out. */
interface Breaker {
  /** Rewrite the parsed JSON request body (return it), or answer at once ({status, body}). */
  req?: (
    b: Record<string, unknown>,
    path: string,
  ) => Record<string, unknown> | { answer: [number, string, string?] };
  /** Rewrite the response text. */
  res?: (text: string, b: Record<string, unknown> | null, path: string) => string;
  /** Override the status. */
  status?: (status: number, b: Record<string, unknown> | null, path: string) => number;
  /** Run as a diff (old: the simulator). */
  diff?: boolean;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const p of req) parts.push(p as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

async function proxy(br: Breaker): Promise<string> {
  const server = createServer(async (req, res) => {
    const raw = await readBody(req);
    const path = req.url ?? '/';
    let body: Record<string, unknown> | null = null;
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      body = null;
    }
    let out = raw;
    if (body && br.req && typeof body === 'object' && !Array.isArray(body)) {
      const r = br.req(body, path);
      if ('answer' in r) {
        const [status, text, type] = r.answer as [number, string, string?];
        res.writeHead(status, { 'content-type': type ?? 'application/json' }).end(text);
        return;
      }
      out = JSON.stringify(r);
      body = r;
    }
    const up = await request(`${sim.url}${path}`, {
      method: req.method as 'GET',
      headers: { 'content-type': 'application/json' },
      body: req.method === 'GET' ? undefined : out,
    });
    let text = await up.body.text();
    if (br.res) text = br.res(text, body, path);
    const status = br.status ? br.status(up.statusCode, body, path) : up.statusCode;
    const ct = up.headers['content-type'];
    res.writeHead(status, { 'content-type': String(ct ?? 'application/json') }).end(text);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  after(() => new Promise<void>((r) => server.close(() => r())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

const userText = (b: Record<string, unknown> | null) =>
  String(((b?.messages as { content?: unknown }[] | undefined) ?? []).at(-1)?.content ?? '');
const promptLen = (b: Record<string, unknown> | null) =>
  Array.isArray(b?.prompt) ? (b.prompt as unknown[]).length : -1;
const onLines = (
  text: string,
  fn: (o: Record<string, unknown>, i: number) => Record<string, unknown> | null,
) => {
  let i = 0;
  return text.replace(/^data: (\{.*\})$/gm, (_, j: string) => {
    const o = fn(JSON.parse(j) as Record<string, unknown>, i++);
    return o === null ? 'data: {"choices":[]}' : `data: ${JSON.stringify(o)}`;
  });
};
const without = (b: Record<string, unknown>, ...keys: string[]) => {
  const c = { ...b };
  for (const k of keys) delete c[k];
  return c;
};
const hasTools = (b: Record<string, unknown> | null) => Array.isArray(b?.tools);

/** One breaker per check id: what it breaks is what the check must catch. */
const BREAKERS: Record<string, Breaker> = {
  'stream.role-first': { res: (t) => t.replaceAll('"role":"assistant",', '') },
  'stream.one-id': { res: (t) => onLines(t, (o, i) => ({ ...o, id: `chatcmpl-${i}` })) },
  'stream.one-finish': {
    res: (t, b) =>
      b?.stream && !hasTools(b)
        ? t.replace('data: [DONE]', `${sse(chatChunk({ finish_reason: 'stop' })).trim()}\n\ndata: [DONE]`)
        : t,
  },
  'stream.finish-reason': {
    res: (t, b) =>
      b?.max_tokens === 16 ? t.replaceAll('"finish_reason":"length"', '"finish_reason":"abort"') : t,
  },
  'stream.usage-chunk': {
    res: (t) =>
      onLines(t, (o) => (Array.isArray(o.choices) && o.choices.length === 0 ? null : without(o, 'usage'))),
  },
  'stream.done': { res: (t) => t.replace('data: [DONE]', '') },
  'stream.parity': { res: (t, b) => (b && !b.stream ? t.replace('"content":"', '"content":"x') : t) },
  'stream.max-tokens': { req: (b) => (b.max_tokens === 5 ? { ...b, max_tokens: 9 } : b) },
  'stream.stop': { req: (b) => without(b, 'stop') },
  'stream.n2': { req: (b) => without(b, 'n') },
  'stream.logprobs': { res: (t) => t.replaceAll(/"top_logprobs":\[[^\]]*\]/g, '"top_logprobs":[]') },
  'errors.malformed-body': {
    status: (s, b, p) => (p === '/v1/chat/completions' && (b === null || Array.isArray(b)) ? 500 : s),
  },
  'errors.unknown-model': {
    req: (b) => (b.model === 'servelab-gate-no-such-model' ? { ...b, model: 'qwen3-8b' } : b),
  },
  'errors.schema-less-json-schema': {
    req: (b) =>
      (b.response_format as { json_schema?: { schema?: unknown } })?.json_schema?.schema === undefined
        ? without(b, 'response_format')
        : b,
  },
  'errors.ignored-constraint': { req: (b) => without(b, 'guided_json') },
  'context.max-model-len': {
    diff: true,
    res: (t, _b, p) =>
      p === '/v1/models' ? t.replace(`"max_model_len":${L}`, `"max_model_len":${L / 2}`) : t,
  },
  'context.below-limit': {
    req: (b) => (promptLen(b) === L - 1 ? { answer: [400, '{"error":{"message":"too long"}}'] } : b),
  },
  'context.over-limit': { res: (t, b) => (promptLen(b) >= L ? t.replaceAll(String(L), 'the limit') : t) },
  'context.prompt-plus-max-tokens': {
    diff: true,
    req: (b) =>
      promptLen(b) === L - 8
        ? {
            answer: [
              200,
              JSON.stringify({
                id: 'x',
                object: 'text_completion',
                choices: [{ index: 0, text: 'a', finish_reason: 'length' }],
                usage: { prompt_tokens: L - 8, completion_tokens: 16, total_tokens: L + 8 },
              }),
            ],
          }
        : b,
  },
  'context.large-body': {
    req: (b) => (userText(b).length > 1_000_000 ? { answer: [500, 'boom', 'text/plain'] } : b),
  },
  'context.health-after': { status: (s, _b, p) => (p === '/health' ? 503 : s) },
  'structured.json-schema-valid': {
    req: (b) => (b.response_format && !b.tools ? without(b, 'response_format') : b),
  },
  'structured.invalid-schema': {
    req: (b) =>
      JSON.stringify(b.response_format ?? '').includes('no-such-type') ? without(b, 'response_format') : b,
  },
  'structured.reasoning-separate': {
    req: (b) =>
      b.response_format && (b.chat_template_kwargs as { enable_thinking?: boolean })?.enable_thinking
        ? {
            answer: [
              200,
              sse(chatChunk({ role: 'assistant', content: '' })) +
                sse(chatChunk({ reasoning_content: 'hmm' })) +
                sse(
                  chatChunk({ content: '<think>hmm</think>{"answer":"a","score":1}', finish_reason: 'stop' }),
                ) +
                DONE,
              'text/event-stream',
            ],
          }
        : b,
  },
  'structured.concurrent-prefix': {
    req: (b) =>
      userText(b).startsWith('Sentence 7:') ? { answer: [500, '{"error":{"message":"crash"}}'] } : b,
  },
  'tools.stream-parity': {
    // the non-streamed arguments name the other unit: both valid, not equal
    res: (t, b) =>
      !b?.stream && hasTools(b)
        ? t
            .replaceAll('celsius', '\u0000')
            .replaceAll('fahrenheit', 'celsius')
            .replaceAll('\u0000', 'fahrenheit')
        : t,
  },
  'tools.required': {
    req: (b) =>
      b.tool_choice === 'required' && userText(b).startsWith('Tell me') ? { ...b, tool_choice: 'auto' } : b,
  },
  'tools.named': {
    req: (b) =>
      typeof b.tool_choice === 'object' && userText(b).includes('Tokyo')
        ? { ...b, tool_choice: { type: 'function', function: { name: 'get_weather' } } }
        : b,
  },
  'tools.zero-args': { res: (t) => t.replaceAll('"arguments":"{}"', '"arguments":"{\\"verbose\\":true}"') },
  'tools.parallel': {
    req: (b) => (b.parallel_tool_calls === true ? { ...b, parallel_tool_calls: false } : b),
  },
  'tools.round-trip': {
    req: (b) =>
      (b.messages as { role: string }[]).some((m) => m.role === 'tool')
        ? { answer: [500, '{"error":{"message":"no"}}'] }
        : b,
  },
  'tools.no-markup': {
    res: (t, b) =>
      hasTools(b) && !b?.stream
        ? t
            .replace('"content":null', '"content":"<tool_call>"')
            .replace('"content":""', '"content":"<tool_call>"')
        : t,
  },
  'reasoning.field-name': {
    diff: true,
    res: (t) => t.replaceAll(/"reasoning_content":"(?:[^"\\]|\\.)*"/g, '"reasoning_content":null'),
  },
  'metrics.names': {
    diff: true,
    res: (t, _b, p) =>
      p === '/metrics'
        ? t
            .split('\n')
            .filter((l) => !l.startsWith('vllm:kv_cache_usage_perc'))
            .join('\n')
        : t,
  },
};

describe('every check fails on a server built to break it', () => {
  const mine = ALL_CHECKS.filter((c) => !['cancel', 'cache', 'load'].includes(c.group));
  test('there is a breaker for every check of groups 1–3, 5–7 and 9', () => {
    assert.deepEqual(
      mine.map((c) => c.id).filter((id) => !(id in BREAKERS)),
      [],
    );
  });
  for (const c of mine) {
    const br = BREAKERS[c.id];
    if (!br) continue;
    test(`${c.number} ${c.id}`, async () => {
      const url = await proxy(br);
      const args = br.diff ? ['--old', sim.base, '--new', url] : ['--url', url];
      const r = await gate([...args, '--model', 'qwen3-8b', '--checks', c.id, '--json', '--timeout', '20']);
      const row = rowsOf(r.out).find((x) => x.id === c.id);
      assert.equal(row?.status, 'fail', `${c.id}: ${row?.status} ${row?.reason ?? ''}`);
      assert.equal(r.code, 2);
      // and the unbroken simulator passes the same check (the breaker is what it catches)
      const ok = await gate(['--url', sim.base, '--checks', c.id, '--json']);
      const okRow = rowsOf(ok.out).find((x) => x.id === c.id);
      assert.ok(
        okRow?.status === 'pass',
        `${c.id} on the simulator: ${okRow?.status} ${okRow?.reason ?? ''}`,
      );
    });
  }
});
