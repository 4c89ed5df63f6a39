/**
 * Prose of the "trace" section (keys `trace.*`): the public trace formats (Azure, BurstGPT,
 * Mooncake, servelab), their errors and skipped rows, the trace flags and `servelab trace stats`.
 * Column and field names (`ContextTokens`, `hash_ids`) stay as they are in both languages.
 */
export const trace = {
  'trace.format.unknown': 'unknown trace format "{got}"',
  'trace.format.unknown_hint': 'use one of {formats}, e.g. --trace-format azure',
  'trace.detect.failed': 'cannot tell the trace format from its first line',
  'trace.detect.failed_hint':
    'expected a CSV header (Azure: TIMESTAMP,ContextTokens,GeneratedTokens; BurstGPT: Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type) or a JSON line (Mooncake: timestamp, input_length, output_length, hash_ids; servelab: timestamp_ms, ...), or name the format with --trace-format ({formats})',
  'trace.empty': 'the trace has no requests',
  'trace.all_skipped': 'every row of the trace was skipped (see the skipped rows)',
  'trace.problems.more': '… and {n} more problems',
  'trace.column.missing': 'the header has no "{column}" column (it has: {columns})',
  'trace.row.columns': 'the row has {got} fields; the header has {want} columns',
  'trace.field.missing': '"{field}" is missing',
  'trace.value.not_number': '{field} is not a number (got "{got}")',
  'trace.length.negative': '{field} is negative ({got})',
  'trace.length.not_integer': '{field} is not a whole number of tokens ({got})',
  'trace.length.hint': '{field} is a token count: an integer ≥ 0',
  'trace.seconds.bad': '{field} is not a time ≥ 0 (got {got})',
  'trace.time.backwards': '{field} {got} is earlier than line {line} ({prev})',
  'trace.time.backwards_hint': 'sort the trace by {field}',
  'trace.azure.time_bad': 'TIMESTAMP is not a date-time like 2023-11-16 18:15:46.6805900 (got "{got}")',
  'trace.azure.hint':
    'an Azure LLM inference trace is a CSV with the header TIMESTAMP,ContextTokens,GeneratedTokens (Azure/AzurePublicDataset: AzureLLMInferenceDataset2023.md)',
  'trace.burstgpt.hint':
    'a BurstGPT trace is a CSV with the header Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type, Timestamp in seconds (HPMLL/BurstGPT: README.md)',
  'trace.mooncake.hint':
    'a Mooncake trace has one JSON object per line: {"timestamp": MS, "input_length": N, "output_length": N, "hash_ids": [...]} (kvcache-ai/Mooncake: FAST25-release/README.md)',
  'trace.servelab.hint':
    'each line is {"timestamp_ms": N, "input_len": N | "prompt": "..." | "messages": [...], "output_len": N}',
  'trace.mooncake.hash_bad': 'hash_ids is not a list of integers',
  'trace.mooncake.blocks':
    'hash_ids has {got} blocks, but input_length {input} makes {want} blocks of {block} tokens',
  'trace.mooncake.blocks_hint':
    "Mooncake's published traces use 512-token blocks; give the trace's block size with --trace-block-size N",
  'trace.skip.zero_input':
    '{count} trace row(s) with 0 input tokens were skipped (a request needs a prompt): lines {lines}',
  'trace.skip.zero_output':
    '{count} trace row(s) with 0 output tokens were skipped (a request asks for at least one token): lines {lines}',
  'trace.skip.burstgpt_failed':
    '{count} BurstGPT row(s) with 0 response tokens (requests that failed in the original trace) were skipped: lines {lines}',
  'trace.flag.needs_trace': '{flag} applies only to a trace replay',
  'trace.flag.needs_trace_hint': 'add --trace FILE, or drop the flag',
  'trace.window.bad': 'not a window START:END in seconds with END > START ≥ 0 (got "{got}")',
  'trace.window.hint':
    'e.g. --trace-window 600:1200 (seconds from the trace\'s first timestamp; "600:" runs to the end)',
  'trace.window.empty':
    'no request of the trace falls in the window {start}–{end} s (the trace spans {span} s)',
  'trace.block_size.bad': '--trace-block-size must be an integer ≥ 1 (got {got})',
  'trace.block_size.hint': "tokens per hash block of a Mooncake trace (512 in Mooncake's published traces)",
  'trace.block_size.only_mooncake':
    '--trace-block-size applies only to Mooncake traces (this one is {format})',
  'trace.rate_scale.hint':
    '2 doubles the arrival rate (halves every gap), 0.5 halves it; the same as --trace-speedup, and the two multiply',
  'trace.requests.too_many': 'the trace has {n} requests; {asked} were asked for',
  'trace.requests.too_many_hint':
    'omit --requests to replay the whole trace (or window), or give at most its number of requests',
  'trace.how.detected': 'detected',
  'trace.how.given': 'given',
  'trace.run.line': 'trace: {format} ({how}), {kept} of {n} requests replayed',
  'trace.run.blocks': 'trace: {blocks} distinct prompt blocks of {size} tokens built from hash_ids',

  // ---- servelab trace stats -------------------------------------------------------------
  'trace.stats.header': 'trace {file} ({format}, {how}): {n} requests over {span} s, mean {rate} req/s',
  'trace.stats.rate': 'rate over time ({bin} s bins): min {min}, median {median}, max {max} req/s',
  'trace.stats.lengths': '{what}: p50 {p50}, p90 {p90}, p99 {p99}, max {max}, mean {mean}',
  'trace.stats.input': 'input tokens',
  'trace.stats.output': 'output tokens',
  'trace.stats.burstiness':
    'burstiness: coefficient of variation of inter-arrival times {cv} (1 = Poisson, above 1 burstier, below 1 more regular)',
  'trace.stats.sharing':
    'prefix sharing: {pct}% of prompt tokens are in blocks already seen ({seen} of {blocks} blocks, {size}-token blocks)',
  'trace.stats.na': '{what}: n/a ({reason})',
  'trace.stats.burstiness_label': 'burstiness',
  'trace.stats.sharing_label': 'prefix sharing',
  'trace.stats.rate_label': 'rate over time',
  'trace.stats.reason.no_hashes':
    'the {format} format has no block hashes: its prompts are generated, so requests share no prefix',
  'trace.stats.reason.few_gaps': 'it needs at least 3 requests (2 inter-arrival times)',
  'trace.stats.reason.same_time': 'every request arrives at the same time',
  'trace.stats.reason.no_lengths': 'the trace gives prompt text, not lengths',
  'trace.stats.wrote': 'wrote {file}',
  'trace.stats.file_missing': 'give the trace file, e.g. servelab trace stats conversation_trace.jsonl',
  'trace.html.title': 'Trace {file}',
  'trace.html.summary': 'Summary',
  'trace.html.charts': 'Charts',
  'trace.html.metric': 'metric',
  'trace.html.value': 'value',
  'trace.html.requests': 'requests',
  'trace.html.span': 'span (s)',
  'trace.html.mean_rate': 'mean rate (req/s)',
  'trace.html.format': 'format',
  'trace.html.skipped': 'skipped rows',
  'trace.chart.rate': 'Arrival rate over time',
  'trace.chart.input': 'Input length distribution',
  'trace.chart.output': 'Output length distribution',
  'trace.chart.gaps': 'Inter-arrival times',
  'trace.axis.time': 'time since the first request (s)',
  'trace.axis.rate': 'requests/s',
  'trace.axis.tokens': 'tokens',
  'trace.axis.requests': 'requests',
  'trace.axis.gap': 'inter-arrival time (ms)',
} as const;
