/** Prose of the "otlp" section (keys `otlp.*`): `run --otlp-port` and `sim --otlp-endpoint`. */
export const otlp = {
  'otlp.cannot_listen': 'cannot receive OpenTelemetry spans on {addr} ({why})',
  'otlp.in_use': 'in use',
  'otlp.permission': 'permission denied',
  'otlp.port_hint': 'pick another --otlp-port, or 0 for any free one',
  'otlp.port_example': "e.g. --otlp-port 4318 (OTLP/HTTP's usual port), or 0 for any free one",
  'otlp.listening':
    "receiving the engine's OpenTelemetry spans on {url}/v1/traces (OTLP/HTTP, protobuf or JSON)",
  'otlp.joined': "joined {joined} of {expected} requests to the engine's spans ({spans} spans received)",
  'otlp.none_joined_hint':
    'no span carried a trace id servelab sent: start vLLM with --otlp-traces-endpoint {url}/v1/traces and OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf (docs/metrics.md#server-side-times)',
  'otlp.workers': 'one port receives the spans, and --workers runs several processes',
  'otlp.workers_hint': 'drop --workers (one process sends the load), or drop --otlp-port',
  'otlp.sim_exporting': 'exporting one llm_request span per request to {url} (OTLP/HTTP, protobuf)',
  'otlp.sim_not_vllm': '--otlp-endpoint exports vLLM\'s request spans, and the engine profile is "{engine}"',
  'otlp.sim_not_vllm_hint': 'use --engine vllm-v1 or vllm-v0 with --otlp-endpoint',
} as const;
