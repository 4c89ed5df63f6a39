/**
 * Prose of the "writeup" section (keys `writeup.*`): the Markdown write-up, in the course's
 * seven sections.
 */
export const writeup = {
  'writeup.title': 'Serving benchmark: {runs}',
  'writeup.todo': 'To write: {what}',
  'writeup.runsLine': 'Runs: {runs}.',
  'writeup.findingRuns': 'Runs: {runs} · rule {rule}',
  'writeup.col.metric': 'metric',
  'writeup.col.value': 'value',
  'writeup.s1': 'Background and goals',
  'writeup.s1.todo': 'what question these runs answer, and for whom',
  'writeup.s2': 'System configuration',
  'writeup.s2.sources':
    "Each value names where it came from: probed or declared (the experiment record), config (the run's configuration) or scrape (what /metrics read the server as).",
  'writeup.s2.todo': 'why this engine and model, and what the alternatives were',
  'writeup.col.engine': 'engine',
  'writeup.col.version': 'version',
  'writeup.col.model': 'model',
  'writeup.col.count': 'count',
  'writeup.col.load': 'load',
  'writeup.col.object': 'object',
  'writeup.col.path': 'path',
  'writeup.col.symbol': 'symbol',
  'writeup.col.note': 'explains',
  'writeup.s3': 'Load design',
  'writeup.s3.todo': 'why these levels, arrival process and request shapes',
  'writeup.s4': 'Metric results',
  'writeup.group.requests': 'Requests and verdict',
  'writeup.group.latency': 'Latency (ms)',
  'writeup.group.throughput': 'Tokens, throughput, goodput and cost',
  'writeup.group.gpu': 'GPU memory and utilisation',
  'writeup.topErrors': 'Top errors:',
  'writeup.vllmDefinitions':
    "Runs read from a vLLM result file (`vllm bench serve --save-result`) follow vLLM's definitions:",
  'writeup.vllmStats': 'the statistics as the file gives them',
  'writeup.s5': 'Explanation of the problem',
  'writeup.s5.todo': 'which finding answers the question, and what would rule the others out',
  'writeup.s6': 'Source code findings',
  'writeup.s6.none': 'No source notes yet for this engine.',
  'writeup.s6.todo':
    'what the service entry, request state, scheduler and execution backend do with a request in these runs, and which finding each explains',
  'writeup.s7': 'Conclusion',
  'writeup.s7.todo': 'the answer to the question in section 1, with the numbers that carry it',
  'writeup.next': 'Next experiments',
  'writeup.next.todo': 'what to test next',
} as const;
