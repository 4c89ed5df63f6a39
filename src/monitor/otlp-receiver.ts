/**
 * @module monitor/otlp-receiver
 * A local OTLP/HTTP trace receiver (`run --otlp-port`): `POST /v1/traces` with an
 * `ExportTraceServiceRequest` in protobuf (`application/x-protobuf`) or JSON (`application/json`),
 * gzip or not, as the OTLP specification's HTTP transport defines it
 * (https://opentelemetry.io/docs/specs/otlp/#otlphttp). Each span is handed on flat: its trace and
 * span ids in lowercase hex, its name and its attributes by key.
 *
 * The protobuf body is decoded by the OpenTelemetry project's own generated code
 * (`@opentelemetry/otlp-transformer`'s protobufjs root, `opentelemetry.proto.collector.trace.v1`),
 * not by hand. A JSON body is the same message in OTLP's JSON mapping (ids as hex strings,
 * 64-bit integers as strings or numbers).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { gunzipSync } from 'node:zlib';
import otlpRoot from '@opentelemetry/otlp-transformer/build/src/generated/root.js';
import type { T } from '../i18n/index.js';
import type { SpanAttributeValue } from '../record/server-times.js';
import { listenLocal } from './listen.js';

/** One received span, flattened. */
export interface OtlpSpan {
  /** 32 lowercase hex digits. */
  trace_id: string;
  /** 16 lowercase hex digits. */
  span_id: string;
  /** The parent's span id, '' for a root span. */
  parent_span_id: string;
  name: string;
  attributes: Record<string, SpanAttributeValue>;
}

/** What an OTLP `AnyValue` holds, as either encoding gives it (only scalars are kept). */
interface AnyValueLike {
  stringValue?: unknown;
  boolValue?: unknown;
  intValue?: unknown;
  doubleValue?: unknown;
}

interface KeyValueLike {
  key?: unknown;
  value?: AnyValueLike | null;
}

interface SpanLike {
  traceId?: unknown;
  spanId?: unknown;
  parentSpanId?: unknown;
  name?: unknown;
  attributes?: KeyValueLike[] | null;
}

interface TraceRequestLike {
  resourceSpans?: { scopeSpans?: { spans?: SpanLike[] | null }[] | null }[] | null;
}

const own = (o: object, k: string) => Object.hasOwn(o, k);

/** An AnyValue's scalar: an int64 (a protobufjs Long, a number, or JSON's string) as a number. */
function scalarOf(v: AnyValueLike | null | undefined): SpanAttributeValue {
  if (!v) return null;
  if (own(v, 'stringValue') && typeof v.stringValue === 'string') return v.stringValue;
  if (own(v, 'boolValue') && typeof v.boolValue === 'boolean') return v.boolValue;
  if (own(v, 'doubleValue') && v.doubleValue !== null) return Number(v.doubleValue);
  if (own(v, 'intValue') && v.intValue !== null) return Number(String(v.intValue));
  return null;
}

/** A protobuf `bytes` id (Uint8Array) or a JSON id (hex) as lowercase hex. */
function hexOf(id: unknown): string {
  if (id instanceof Uint8Array) return Buffer.from(id).toString('hex');
  return typeof id === 'string' ? id.toLowerCase() : '';
}

function flatten(req: TraceRequestLike): OtlpSpan[] {
  const out: OtlpSpan[] = [];
  for (const rs of req.resourceSpans ?? [])
    for (const ss of rs.scopeSpans ?? [])
      for (const s of ss.spans ?? []) {
        const attributes: Record<string, SpanAttributeValue> = {};
        for (const kv of s.attributes ?? [])
          if (typeof kv.key === 'string') attributes[kv.key] = scalarOf(kv.value);
        out.push({
          trace_id: hexOf(s.traceId),
          span_id: hexOf(s.spanId),
          parent_span_id: hexOf(s.parentSpanId),
          name: typeof s.name === 'string' ? s.name : '',
          attributes,
        });
      }
  return out;
}

/** The generated decoder of `ExportTraceServiceRequest` (protobufjs static code). */
const TraceRequest = (
  otlpRoot as unknown as {
    opentelemetry: {
      proto: {
        collector: { trace: { v1: { ExportTraceServiceRequest: { decode(b: Uint8Array): unknown } } } };
      };
    };
  }
).opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

/** The body's encoding, from its content type; null: neither OTLP encoding. */
export function otlpEncodingOf(contentType: string | undefined): 'protobuf' | 'json' | null {
  const ct = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (ct === 'application/x-protobuf' || ct === 'application/protobuf') return 'protobuf';
  if (ct === 'application/json') return 'json';
  return null;
}

/**
 * The spans of an `ExportTraceServiceRequest` body. Throws on a body that does not decode.
 * @example
 * decodeTraceRequest(Buffer.from('{"resourceSpans":[]}'), 'json') // []
 */
export function decodeTraceRequest(body: Uint8Array, encoding: 'protobuf' | 'json'): OtlpSpan[] {
  if (encoding === 'protobuf') return flatten(TraceRequest.decode(body) as TraceRequestLike);
  const parsed: unknown = body.length === 0 ? {} : JSON.parse(Buffer.from(body).toString('utf8'));
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error('expected an ExportTraceServiceRequest object');
  return flatten(parsed as TraceRequestLike);
}

/** A running receiver. */
export interface OtlpReceiver {
  /** `http://127.0.0.1:PORT` (the traces path is `/v1/traces`). */
  url: string;
  port: number;
  /** Spans received so far. */
  readonly spans: number;
  close(): Promise<void>;
}

/** Bodies above this are refused (413): a batch of request spans is kilobytes. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;

function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        resolve(null);
        req.destroy();
        return;
      }
      parts.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });
}

/**
 * Listen on `host:port` (0: any free port) for OTLP/HTTP trace exports and hand every span to
 * `onSpans`. Answers 200 with an empty `ExportTraceServiceResponse` in the request's encoding,
 * 415 to another content type, 400 to a body that does not decode, 404 elsewhere.
 */
export async function startOtlpReceiver(opts: {
  port: number;
  host?: string;
  onSpans: (spans: OtlpSpan[]) => void;
  t: T;
}): Promise<OtlpReceiver> {
  const host = opts.host ?? '127.0.0.1';
  const { t } = opts;
  let received = 0;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const text = (status: number, body: string) => {
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`${body}\n`);
    };
    if (path !== '/v1/traces') return text(404, 'not found; OTLP traces go to POST /v1/traces');
    if (req.method !== 'POST') return text(405, 'method not allowed; POST an ExportTraceServiceRequest');
    const encoding = otlpEncodingOf(req.headers['content-type']);
    if (!encoding) {
      req.resume();
      return text(415, 'expected application/x-protobuf or application/json');
    }
    readBody(req).then(
      (raw) => {
        if (raw === null) return text(413, 'body too large');
        let spans: OtlpSpan[];
        try {
          const gz = String(req.headers['content-encoding'] ?? '').toLowerCase() === 'gzip';
          spans = decodeTraceRequest(gz ? gunzipSync(raw) : raw, encoding);
        } catch (err) {
          return text(400, `cannot decode the ExportTraceServiceRequest: ${(err as Error).message}`);
        }
        received += spans.length;
        opts.onSpans(spans);
        // An empty ExportTraceServiceResponse: no bytes in protobuf, `{}` in JSON.
        res.writeHead(200, {
          'content-type': encoding === 'protobuf' ? 'application/x-protobuf' : 'application/json',
        });
        res.end(encoding === 'protobuf' ? undefined : '{}');
      },
      () => res.destroy(),
    );
  });
  server.keepAliveTimeout = 5000;
  const { url, port } = await listenLocal(server, host, opts.port, (code) => ({
    path: '--otlp-port',
    message: t('otlp.cannot_listen', {
      addr: `${host}:${opts.port}`,
      why: t(code === 'EADDRINUSE' ? 'otlp.in_use' : 'otlp.permission'),
    }),
    hint: t('otlp.port_hint'),
  }));
  return {
    url,
    port,
    get spans() {
      return received;
    },
    close: () =>
      new Promise<void>((res, rej) => {
        server.close((err) => (err ? rej(err) : res()));
        server.closeAllConnections();
      }),
  };
}
