/**
 * @module monitor
 * Public surface of monitoring: scraping engine and GPU metrics during a run, the name maps
 * into servelab's vocabulary, nvidia-smi, and servelab's own Prometheus exporter.
 */
export {
  createExporter,
  type Exporter,
  type MetricsServer,
  startMetricsServer,
} from './exporter.js';
export {
  COUNTER_VOCAB,
  counterIncrease,
  detectEngine,
  ENGINE_MAPS,
  type EngineKind,
  type Normalized,
  normalize,
  SERVER_TOKEN_RATE,
  tokenRate,
  VOCAB,
  type VocabName,
} from './maps.js';
export {
  type ExecFn,
  type GpuReading,
  hasNvidiaSmi,
  isLocalUrl,
  localGpuSources,
  nvidiaSmiSource,
  parseNvidiaSmiCsv,
  readNvidiaSmi,
} from './nvidia-smi.js';
export {
  decodeTraceRequest,
  type OtlpReceiver,
  type OtlpSpan,
  otlpEncodingOf,
  startOtlpReceiver,
} from './otlp-receiver.js';
export {
  type Family,
  type MetricType,
  type ParseResult,
  parsePrometheusText,
  type Sample,
} from './prom-parse.js';
export {
  createHttpGet,
  defaultMetricsUrl,
  type GetFn,
  httpGetText,
  httpSource,
  metricsAnswer,
  redactUrl,
  type ScrapePoint,
  type Scraper,
  type ScraperOptions,
  type ScrapeStats,
  type SourceStats,
  startScraper,
} from './scraper.js';
export { SIM_METRIC_NAMES } from './sim-metric-names.js';
export type { ScrapeSource, SourceReading } from './source.js';
