import type { otlp as en } from '../en/otlp.js';

/** "otlp" 部分的文字：`run --otlp-port` 与 `sim --otlp-endpoint`。 */
export const otlp: Record<keyof typeof en, string> = {
  'otlp.cannot_listen': '无法在 {addr} 接收 OpenTelemetry span（{why}）',
  'otlp.in_use': '端口已被占用',
  'otlp.permission': '没有权限',
  'otlp.port_hint': '换一个 --otlp-port，或用 0 让系统挑一个空闲端口',
  'otlp.port_example': '例如 --otlp-port 4318（OTLP/HTTP 的常用端口），或用 0 让系统挑一个空闲端口',
  'otlp.listening': '在 {url}/v1/traces 接收引擎的 OpenTelemetry span（OTLP/HTTP，protobuf 或 JSON）',
  'otlp.joined': '{expected} 个请求中有 {joined} 个关联上了引擎的 span（共收到 {spans} 个 span）',
  'otlp.none_joined_hint':
    '没有任何 span 带着 servelab 发出的 trace id：启动 vLLM 时加上 --otlp-traces-endpoint {url}/v1/traces，并设置 OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf（见 docs/metrics.md#server-side-times）',
  'otlp.workers': '接收 span 的端口只有一个，而 --workers 会启动多个进程',
  'otlp.workers_hint': '去掉 --workers（由一个进程发压），或者去掉 --otlp-port',
  'otlp.sim_exporting': '每个请求导出一个 llm_request span 到 {url}（OTLP/HTTP，protobuf）',
  'otlp.sim_not_vllm': '--otlp-endpoint 导出的是 vLLM 的请求 span，而当前引擎配置是“{engine}”',
  'otlp.sim_not_vllm_hint': '使用 --otlp-endpoint 时请配合 --engine vllm-v1 或 vllm-v0',
};
