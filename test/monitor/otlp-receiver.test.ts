/**
 * @module test/monitor/otlp-receiver
 * The OTLP/HTTP trace receiver over loopback: JSON bodies in OTLP's JSON mapping (hex ids, int64
 * as strings), gzip, and the refusals (wrong path, method, content type, a body that does not
 * decode). Protobuf bodies from OpenTelemetry's own exporter are covered end to end in
 * test/cli/otlp-join.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { translator } from '../../src/i18n/index.js';
import {
  decodeTraceRequest,
  type OtlpReceiver,
  type OtlpSpan,
  startOtlpReceiver,
} from '../../src/monitor/index.js';

const TRACE = '5b8efff798038103d269b633813fc60c';
const body = {
  resourceSpans: [
    {
      scopeSpans: [
        {
          spans: [
            {
              traceId: TRACE.toUpperCase(),
              spanId: 'eee19b7ec3c1b174',
              parentSpanId: 'eee19b7ec3c1b173',
              name: 'llm_request',
              attributes: [
                { key: 'gen_ai.latency.time_in_queue', value: { doubleValue: 0.25 } },
                { key: 'gen_ai.usage.prompt_tokens', value: { intValue: '123' } },
                { key: 'gen_ai.request.id', value: { stringValue: 'chatcmpl-1' } },
                { key: 'flag', value: { boolValue: true } },
              ],
            },
          ],
        },
      ],
    },
  ],
};

describe('OTLP/HTTP trace receiver', () => {
  let rx: OtlpReceiver;
  const got: OtlpSpan[] = [];
  before(async () => {
    rx = await startOtlpReceiver({ port: 0, onSpans: (s) => got.push(...s), t: translator('en') });
  });
  after(() => rx.close());

  const post = (b: string | Buffer, headers: Record<string, string>, path = '/v1/traces') =>
    fetch(`${rx.url}${path}`, { method: 'POST', headers, body: b });

  it('decodes a JSON export (hex ids, int64 as a string) and answers an empty response', async () => {
    const res = await post(JSON.stringify(body), { 'content-type': 'application/json' });
    assert.equal(res.status, 200);
    assert.equal(await res.text(), '{}');
    assert.deepEqual(got.at(-1), {
      trace_id: TRACE,
      span_id: 'eee19b7ec3c1b174',
      parent_span_id: 'eee19b7ec3c1b173',
      name: 'llm_request',
      attributes: {
        'gen_ai.latency.time_in_queue': 0.25,
        'gen_ai.usage.prompt_tokens': 123,
        'gen_ai.request.id': 'chatcmpl-1',
        flag: true,
      },
    });
    assert.equal(rx.spans, 1);
  });

  it('reads a gzip body', async () => {
    const res = await post(gzipSync(JSON.stringify(body)), {
      'content-type': 'application/json; charset=utf-8',
      'content-encoding': 'gzip',
    });
    assert.equal(res.status, 200);
    assert.equal(got.length, 2);
  });

  it('refuses what is not an OTLP trace export, with a status that says why', async () => {
    assert.equal((await post('x', { 'content-type': 'text/plain' })).status, 415);
    assert.equal((await post('{}', { 'content-type': 'application/json' }, '/v1/metrics')).status, 404);
    assert.equal((await fetch(`${rx.url}/v1/traces`)).status, 405);
    const bad = await post(Buffer.from([0xff, 0xff, 0xff]), { 'content-type': 'application/x-protobuf' });
    assert.equal(bad.status, 400);
    assert.match(await bad.text(), /cannot decode/);
    assert.equal((await post('[1]', { 'content-type': 'application/json' })).status, 400);
    assert.equal(got.length, 2);
  });

  it('an empty protobuf body is an export of no spans', () => {
    assert.deepEqual(decodeTraceRequest(new Uint8Array(0), 'protobuf'), []);
  });

  it('a port in use is a usage error with a hint, not a stack trace', async () => {
    await assert.rejects(
      startOtlpReceiver({ port: rx.port, onSpans: () => {}, t: translator('en') }),
      (e: Error & { problems?: { path: string; hint: string }[] }) =>
        e.problems?.[0]?.path === '--otlp-port' && /--otlp-port/.test(e.problems[0].hint),
    );
  });
});
