/**
 * @module report
 * Public surface of `servelab report` and `servelab diagnose` as a library: the comparison
 * table and its renderers, the chart option builders and their SVG rendering, the HTML report,
 * the Markdown write-up, and the diagnosis. Everything takes already-loaded {@link LoadedRun}s;
 * `report-json` and `vllm-result` turn servelab's report.json and vLLM's result files into them.
 */
export * from './chart-kit.js';
export * from './charts.js';
export * from './diagnose/index.js';
export * from './html.js';
export * from './markdown.js';
export * from './report-json.js';
export * from './source-map.js';
export * from './table.js';
export * from './vllm-result.js';
