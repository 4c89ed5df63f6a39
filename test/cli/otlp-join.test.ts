/**
 * @module test/cli/otlp-join
 * `run --otlp-port`: every request carries a W3C `traceparent`, and the engine's OpenTelemetry
 * span for it, received over OTLP/HTTP, fills the record's `server` (`source: 'otlp'`), joined by
 * the trace id. Measured through the real CLI in-process (`main(argv, io)`):
 * - against a purpose-built server on loopback that answers each chat request and exports a span
 *   carrying `vllm/tracing.py`'s attribute names, child of the request's `traceparent`, with the
 *   OpenTelemetry JS SDK's own exporters: protobuf (`exporter-trace-otlp-proto`) and JSON
 *   (`exporter-trace-otlp-http`); each record's server times are its span's seconds × 1000;
 * - against the simulator (`startSimServer`, what `servelab sim` runs) with `--otlp-endpoint`.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { defaultTextMapGetter, ROOT_CONTEXT, SpanKind } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import type { RequestRecord } from '../../src/record/types.js';
import { SUCCESS_OUTCOMES } from '../../src/record/types.js';
import { startSimServer } from '../../src/sim/server/index.js';
import {
  chatChunk,
  DONE,
  refusedPort,
  type Script,
  sse,
  startSseServer,
  USAGE,
  usageChunk,
} from '../helpers/misbehaving.js';
import '../helpers/node-warnings.js';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Run servelab in-process in a fresh folder; the run's records and its console. */
async function runCli(args: string[]): Promise<{ err: string; records: RequestRecord[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'servelab-otlp-'));
  dirs.push(dir);
  const io = memoryIo({}, dir);
  const code = await main([...args, '--no-db', '--out', 'out', '--no-scrape'], io);
  assert.equal(code, 0, `${io.out()}\n${io.err()}`);
  const records = readFileSync(join(dir, 'out', 'requests.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as RequestRecord);
  return { err: io.err(), records };
}

const successes = (rs: readonly RequestRecord[]) =>
  rs.filter((r) => r.phase === 'measure' && SUCCESS_OUTCOMES.includes(r.outcome));

/** vLLM's span attributes (seconds) that the echo server gives the k-th request. */
function attributesFor(k: number): Record<string, number | string> {
  return {
    'gen_ai.latency.time_in_queue': 0.001 * (k + 1),
    'gen_ai.latency.time_in_model_prefill': 0.002 * (k + 1),
    'gen_ai.latency.time_in_model_decode': 0.003 * (k + 1),
    'gen_ai.latency.time_to_first_token': 0.004 * (k + 1),
    'gen_ai.latency.e2e': 0.01 * (k + 1),
    'gen_ai.request.id': `req-${k}`,
    'gen_ai.usage.prompt_tokens': 20,
    'gen_ai.usage.completion_tokens': 3,
  };
}

/**
 * A chat server that, for each request, exports an `llm_request` span (kind SERVER) whose parent
 * is the request's `traceparent`, through the OpenTelemetry JS SDK's batch processor and `exporter`.
 * `sent` maps each trace id it saw to the attributes its span carried.
 */
async function startEchoServer(exporter: ProtoExporter | JsonExporter) {
  const provider = new BasicTracerProvider({
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 100 })],
  });
  const tracer = provider.getTracer('vllm.entrypoints.openai.api_server');
  const propagator = new W3CTraceContextPropagator();
  const sent = new Map<string, Record<string, number | string>>();
  let k = 0;
  const srv = await startSseServer((req): Script => {
    const path = req.path.split('?')[0];
    if (path === '/v1/models')
      return {
        headers: { 'content-type': 'application/json' },
        steps: [
          JSON.stringify({ object: 'list', data: [{ id: 'test-model', object: 'model', owned_by: 'vllm' }] }),
        ],
      };
    if (path !== '/v1/chat/completions')
      return { status: 404, headers: { 'content-type': 'application/json' }, steps: ['{}'] };
    const carrier = { traceparent: String(req.headers.traceparent ?? '') };
    const parent = propagator.extract(ROOT_CONTEXT, carrier, defaultTextMapGetter);
    const attributes = attributesFor(k++);
    const traceId = carrier.traceparent.split('-')[1];
    if (traceId) sent.set(traceId, attributes);
    tracer.startSpan('llm_request', { kind: SpanKind.SERVER, attributes }, parent).end();
    return {
      headers: { 'content-type': 'text/event-stream' },
      steps: [
        sse(chatChunk({ role: 'assistant', content: '' })),
        sse(chatChunk({ content: 'Hi' })),
        { delay_ms: 5 },
        sse(chatChunk({ content: '!', finish_reason: 'stop' })),
        sse(usageChunk(USAGE)),
        DONE,
      ],
    };
  });
  return {
    srv,
    sent,
    close: async () => {
      await srv.close();
      await provider.shutdown();
    },
  };
}

describe('run --otlp-port joins each record to its engine span by traceparent', () => {
  for (const [encoding, make] of [
    ['protobuf', (url: string) => new ProtoExporter({ url })],
    ['JSON', (url: string) => new JsonExporter({ url })],
  ] as const)
    it(`spans from the OpenTelemetry JS exporter (${encoding}) with vllm/tracing.py's attribute names`, async () => {
      const port = await refusedPort();
      const echo = await startEchoServer(make(`http://127.0.0.1:${port}/v1/traces`));
      try {
        const { err, records } = await runCli([
          'run',
          '--url',
          echo.srv.baseUrl,
          '--model',
          'test-model',
          '--requests',
          '12',
          '--concurrency',
          '3',
          '--seed',
          '7',
          '--otlp-port',
          String(port),
        ]);
        const ok = successes(records);
        assert.equal(ok.length, 12);
        assert.match(err, /joined 12 of 12 requests/);
        // Every attempt sent a traceparent the server saw, and its record keeps the trace id.
        assert.equal(echo.sent.size, 12);
        for (const r of ok) {
          assert.match(r.trace_id ?? '', /^[0-9a-f]{32}$/);
          const attrs = echo.sent.get(r.trace_id as string);
          assert.ok(attrs, `${r.id}: the server saw no traceparent with trace id ${r.trace_id}`);
          const s = r.server;
          assert.equal(s?.source, 'otlp', `${r.id}: ${JSON.stringify(s)}`);
          const ms = (name: string) => (attrs[name] as number) * 1000;
          assert.ok(Math.abs((s.queue_ms as number) - ms('gen_ai.latency.time_in_queue')) < 1e-9);
          assert.ok(Math.abs((s.prefill_ms as number) - ms('gen_ai.latency.time_in_model_prefill')) < 1e-9);
          assert.ok(Math.abs((s.decode_ms as number) - ms('gen_ai.latency.time_in_model_decode')) < 1e-9);
          assert.equal(r.server_reason ?? null, null);
        }
        // Distinct trace ids: no two records joined the same span.
        assert.equal(new Set(ok.map((r) => r.trace_id)).size, 12);
      } finally {
        await echo.close();
      }
    });

  it('the vLLM-like simulator with --otlp-endpoint: every record joins its llm_request span', async () => {
    const port = await refusedPort();
    const sim = await startSimServer({
      model: 'qwen3-0.6b',
      gpu: 'h100',
      port: 0,
      timeScale: 10,
      otlpEndpoint: `http://127.0.0.1:${port}`,
    });
    try {
      const { err, records } = await runCli([
        'run',
        '--url',
        `${sim.url}/v1`,
        '--requests',
        '10',
        '--concurrency',
        '4',
        '--input-len',
        '128',
        '--output-len',
        '8',
        '--seed',
        '3',
        '--otlp-port',
        String(port),
      ]);
      const ok = successes(records);
      assert.equal(ok.length, 10);
      assert.match(err, /joined 10 of 10 requests/);
      for (const r of ok) {
        assert.match(r.trace_id ?? '', /^[0-9a-f]{32}$/);
        assert.equal(r.server?.source, 'otlp', `${r.id}: ${JSON.stringify(r.server)}`);
        assert.ok((r.server.prefill_ms as number) > 0, `${r.id}: ${JSON.stringify(r.server)}`);
        assert.ok((r.server.queue_ms as number) >= 0);
        assert.ok((r.server.decode_ms as number) > 0);
      }
    } finally {
      await sim.close();
    }
  });
});

it('--otlp-port with --workers is refused with a hint: one port, several processes', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'servelab-otlp-'));
  dirs.push(dir);
  const io = memoryIo({}, dir);
  const code = await main(
    ['run', '--url', 'http://127.0.0.1:9/v1', '--workers', '2', '--otlp-port', '0', '--no-db'],
    io,
  );
  assert.notEqual(code, 0);
  assert.match(io.err(), /--otlp-port: one port receives the spans/);
  assert.match(io.err(), /hint: drop --workers/);
  assert.doesNotMatch(io.err(), /\bat .*\.ts:\d+/, 'no stack trace');
});
