/**
 * @module report
 * Public surface of `servelab report` and `servelab diagnose` as a library: the comparison
 * table and its renderers, the chart option builders and their SVG rendering, the HTML report,
 * the Markdown write-up, and the diagnosis as text (the diagnosis itself is judged in
 * `analysis/diagnose`). Everything takes already-loaded runs (`analysis/loaded-run`);
 * `report-json` and `vllm-result` turn servelab's report.json and vLLM's result files into them.
 */
export * from './answer.js';
export * from './answer-render.js';
export * from './chart-kit.js';
export * from './charts.js';
export * from './comparison-table.js';
export * from './diagnose/render.js';
export * from './html.js';
export * from './markdown.js';
export * from './report-json.js';
export * from './source-map.js';
export * from './vllm-result.js';
