/**
 * @module sim/server/otlp-spans
 * `servelab sim --otlp-endpoint URL`: one OpenTelemetry span per finished request, as vLLM
 * exports it with `--otlp-traces-endpoint` (vllm-project/vllm `vllm/v1/engine/output_processor.py`
 * `do_tracing`, commit d07822605346f767b672503c9aae85aa23ef2d82): named `llm_request`, kind SERVER,
 * a child of the context in the request's `traceparent` header (vLLM extracts it with
 * `TraceContextTextMapPropagator`, `vllm/tracing.py`), starting at the request's arrival, with
 * vLLM's `SpanAttributes` (`record/server-times` {@link VLLM_SPAN_ATTRIBUTES}) in seconds. The
 * simulator's engine ms are wall ms × `--time-scale`, so each is divided by the scale: the span
 * says what a real server running that fast would have measured on its wall clock.
 *
 * Exported with the OpenTelemetry JS SDK over OTLP/HTTP protobuf (vLLM's exporter when
 * `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf`), through a batch processor, as vLLM's is.
 */
import { type Context, ROOT_CONTEXT, SpanKind, type TextMapGetter } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { UsageError } from '../../core/errors.js';
import { translator } from '../../i18n/index.js';
import { VLLM_SPAN_ATTRIBUTES as A } from '../../record/server-times.js';

const EN = translator('en');

/** What a finished request tells its span, in engine ms (undefined: it never got there). */
export interface FinishedSpan {
  /** The request's `traceparent` header, if it sent one. */
  traceparent: string | undefined;
  requestId: string;
  /** Wall unix ms when it ended. */
  endUnixMs: number;
  e2eMs: number;
  ttftMs?: number;
  queueMs?: number;
  prefillMs?: number;
  decodeMs?: number;
  promptTokens: number;
  completionTokens: number;
  finishReason: string;
  maxTokens?: number;
  temperature?: number;
  n: number;
}

/** The exporter of the simulator's request spans. */
export interface SpanExport {
  emit(s: FinishedSpan): void;
  /** Export what is queued and stop. */
  shutdown(): Promise<void>;
}

/** A traces URL as the exporter takes it: a bare `http://host:port` gets OTLP's `/v1/traces`. */
export function tracesUrl(endpoint: string): string {
  const u = new URL(endpoint);
  if (u.pathname === '/' || u.pathname === '') u.pathname = '/v1/traces';
  return u.toString();
}

const GETTER: TextMapGetter<Record<string, string>> = {
  get: (carrier, key) => carrier[key],
  keys: (carrier) => Object.keys(carrier),
};

/**
 * `sim --otlp-endpoint`: the span exporter, or none without the flag. vLLM's request span only;
 * SGLang's tracing exports a tree of its own (docs/metrics.md), so other profiles are refused.
 */
export function spanExportOf(
  so: { otlpEndpoint?: string; timeScale: number },
  engine: string,
  log: (line: string) => void,
): SpanExport | undefined {
  if (so.otlpEndpoint === undefined) return undefined;
  if (!engine.startsWith('vllm'))
    throw new UsageError([
      {
        path: '--otlp-endpoint',
        message: EN('otlp.sim_not_vllm', { engine }),
        hint: EN('otlp.sim_not_vllm_hint'),
      },
    ]);
  const spans = startSpanExport(so.otlpEndpoint, so.timeScale);
  log(EN('otlp.sim_exporting', { url: tracesUrl(so.otlpEndpoint) }));
  return spans;
}

/**
 * Start exporting request spans to `endpoint` (see the module comment).
 * @param timeScale engine ms per wall ms (`--time-scale`)
 */
export function startSpanExport(endpoint: string, timeScale: number): SpanExport {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'servelab-sim' }),
    spanProcessors: [
      // vLLM's BatchSpanProcessor with the SDK's defaults would hold spans 5 s; a shorter delay
      // lets a run's grace period end sooner, and changes nothing a span says.
      new BatchSpanProcessor(new OTLPTraceExporter({ url: tracesUrl(endpoint) }), {
        scheduledDelayMillis: 200,
      }),
    ],
  });
  const tracer = provider.getTracer('vllm.entrypoints.openai.api_server');
  const propagator = new W3CTraceContextPropagator();
  const scale = timeScale > 0 ? timeScale : 1;
  const wallS = (engineMs: number | undefined) =>
    engineMs === undefined ? undefined : engineMs / scale / 1000;
  return {
    emit(s) {
      const parent: Context = s.traceparent
        ? propagator.extract(ROOT_CONTEXT, { traceparent: s.traceparent }, GETTER)
        : ROOT_CONTEXT;
      const e2e = wallS(s.e2eMs) ?? 0;
      const attributes: Record<string, string | number | undefined> = {
        [A.ttft_s]: wallS(s.ttftMs),
        [A.e2e_s]: e2e,
        [A.queue_s]: wallS(s.queueMs),
        [A.prompt_tokens]: s.promptTokens,
        [A.completion_tokens]: s.completionTokens,
        [A.prefill_s]: wallS(s.prefillMs),
        [A.decode_s]: wallS(s.decodeMs),
        [A.inference_s]:
          s.prefillMs !== undefined && s.decodeMs !== undefined ? wallS(s.prefillMs + s.decodeMs) : undefined,
        [A.request_id]: s.requestId,
        'gen_ai.response.finish_reason': JSON.stringify([s.finishReason]),
        'gen_ai.request.max_tokens': s.maxTokens,
        'gen_ai.request.temperature': s.temperature || undefined,
        'gen_ai.request.n': s.n,
      };
      for (const k of Object.keys(attributes)) if (attributes[k] === undefined) delete attributes[k];
      const span = tracer.startSpan(
        'llm_request',
        {
          kind: SpanKind.SERVER,
          startTime: new Date(s.endUnixMs - e2e * 1000),
          attributes: attributes as Record<string, string | number>,
        },
        parent,
      );
      span.end(new Date(s.endUnixMs));
    },
    shutdown: () => provider.shutdown(),
  };
}
