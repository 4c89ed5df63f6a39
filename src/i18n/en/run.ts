/**
 * Prose of the "run" section (keys `run.*`): the console summary of `run`, `plan` and `demo`
 * (report/run/summary-table), their verdict, tokenization, thresholds and closing lines. Metric
 * names (`ttft_ms`) are not prose and stay as they are.
 */
export const run = {
  'run.table.requests': 'Requests',
  'run.table.planned': 'planned',
  'run.table.measured': 'measured',
  'run.table.succeeded': 'succeeded',
  'run.table.failed': 'failed',
  'run.table.error_rate': 'error rate',
  'run.table.usage_missing': 'usage missing',
  'run.table.outcomes': 'Outcomes',
  'run.table.finish_reasons': 'Finish reasons',
  'run.table.latency': 'Latency (ms)',
  'run.table.stages': 'Load stages (ms)',
  'run.table.stage': 'stage',
  'run.table.metric': 'metric',
  'run.table.throughput': 'Throughput',
  'run.table.output_tok_s': 'output tokens/s',
  'run.table.total_tok_s': 'total tokens/s',
  'run.table.requests_s': 'requests/s',
  'run.table.achieved_rate': 'achieved send rate (req/s)',
  'run.table.goodput': 'Goodput ({slo})',
  'run.table.good_rps': 'good requests/s',
  'run.table.good_fraction': 'good fraction',
  'run.table.littles_law': "Little's law",
  'run.table.measured_in_flight': 'measured in flight',
  'run.table.predicted_in_flight': 'predicted (λ·W)',
  'run.table.relative_gap': 'relative gap',
  'run.table.predicted_users': 'predicted (closed-loop users)',
  'run.table.littles_law_not_judged': 'not judged: too few requests',
  'run.table.tokens': 'Tokens (mean per request)',
  'run.table.input': 'input',
  'run.table.output': 'output',
  'run.table.client': 'Client',
  'run.table.event_loop': 'event-loop delay p50/p99/max (ms)',
  'run.table.cpu': 'CPU',
  'run.table.prepared': 'set-up before the window',
  'run.table.prepared_value':
    '{connections} connection(s) opened, {warm} in-process warm-up(s), not recorded',
  'run.table.top_errors': 'Top errors',
  'run.table.warnings': 'Warnings',
  'run.table.ttft_split': "TTFT breakdown (ms, from the server's own timings: {source})",
  'run.table.ttft_split_none': 'TTFT breakdown (ms)',
  // ---- why a part of the TTFT breakdown is empty (analysis/ttft-breakdown) ----
  'run.ttft_split.no_ttft': 'no successful request was streamed with a first token',
  'run.ttft_split.no_timings':
    'the server sent no per-request timings (llama.cpp and `servelab sim --expose-timings` do; vLLM and SGLang do not)',
  'run.ttft_split.no_queue':
    "the server's timings report no queue time (llama.cpp's do not): waiting for a free slot is counted in ttft_rest_ms",
  'run.verdict.valid': 'verdict: valid (no reason found to doubt these numbers)',
  'run.verdict.invalid': 'verdict: NOT VALID, these numbers cannot bear weight:',
  'run.tokenization': 'tokenization: {what}',
  'run.tokenization.tokenizer': 'the offline tokenizer (exact)',
  'run.tokenization.server_tokenize': "the server's /tokenize (exact)",
  'run.tokenization.approximate':
    'the approximation (synthetic prompts exact; English prose about +10% (−3% to +25%); Chinese about −11% (−18% to −3%), against Qwen3)',
  'run.tokenization.tokenizer_agrees':
    "the offline tokenizer for {name} (exact: the server's /tokenize agrees on a probe, {local} tokens)",
  'run.tokenization.tokenizer_unchecked':
    'the offline tokenizer for {name} (approximate: no server /tokenize answered, so nothing shows the server serves this tokenizer)',
  'run.tokenization.tokenizer_differs':
    "the server's /tokenize (the served model's own tokenizer), not the one for {name}: that one counts a probe as {local} tokens, the server as {server}, so the server serves another vocabulary",
  'run.prompt_overhead':
    'input {requested} tokens requested (median); the server counts {sign}{n} per prompt on top (BOS, and on chat the chat template; from usage.prompt_tokens)',
  'run.tokenization.none': 'none needed (the prompts are sent as given)',
  'run.header': 'servelab run: {url} model {model}, seed {seed}',
  'run.header_run': 'servelab run: {url} model {model} (run {id}), seed {seed}',
  'run.progress.line':
    '[{elapsed}s] {count} done · {in_flight} in flight · {errors} errors · {rate} req/s{eta}',
  'run.progress.line_one_error':
    '[{elapsed}s] {count} done · {in_flight} in flight · {errors} error · {rate} req/s{eta}',
  'run.progress.eta': ' · ETA {eta}',
  'run.started': 'run {id} started',
  'run.wrote': 'wrote {files}',
  'run.drain_timeout':
    "drain timed out: requests still in flight {s} s after the run's end were cancelled (--drain-timeout)",
  'run.context.over':
    'every prompt of --input-len {input} is at least the context of {model} ({max} tokens, its max_model_len on /v1/models): the server would refuse each request',
  'run.context.overHint': 'give an --input-len below {max} tokens, leaving room for the output',
  'run.interrupted': 'interrupted: in-flight and unsent requests were recorded as cancelled',
  'run.fail_fast': 'stopped early (fail fast): {reason}',
  'run.fail_fast.same_way': 'the first requests all failed the same way',
  'run.fail_fast.unsent':
    '{n} unsent request(s) were recorded as cancelled; --no-fail-fast sends every request anyway',
  'run.thresholds': 'thresholds',
  'run.thresholds.pass': 'pass',
  'run.thresholds.fail': 'FAIL',
  'run.thresholds.no_data': 'no data',
  'run.thresholds.limit': '(limit {limit})',
  'run.thresholds.limit_baseline': '(limit {limit}, baseline {baseline})',
  'run.plan.header': 'servelab plan: {model} on {gpu} (virtual time, {s} s simulated), seed {seed}',
  'run.plan.header_run':
    'servelab plan: {model} on {gpu} (virtual time, {s} s simulated) (run {id}), seed {seed}',
  'run.plan.max_concurrency': 'largest concurrency meeting the SLOs (≥ {pct}% good): {c}',
  'run.plan.no_concurrency': 'no concurrency meets the SLOs',
  'run.demo.simulator':
    'simulator: {model} on {gpu} (vLLM-like engine) in this process, clock: virtual (as servelab plan: the same numbers on any machine)',
  'run.demo.closed': 'closed loop: 8 concurrent users, 48 requests',
  'run.demo.poisson': 'open loop: Poisson arrivals at 6 requests/s, 36 requests, at most 32 in flight',
  'run.demo.next': 'next: open {file}, or try',
  // ---- the summary's warnings (analysis/summary) ----
  'run.warn.no_measured': 'no measured requests: every metric is empty',
  'run.warn.none_succeeded': 'none of the {n} measured requests succeeded',
  'run.warn.thin_p99': 'p99 rests on fewer than 100 samples for {metrics}: treat it as unstable',
  'run.warn.thin_p95': 'p95 rests on fewer than 20 samples for {metrics}: treat it as unstable',
  'run.warn.usage_missing':
    '{n} successful request(s) carried no usage.completion_tokens: tpot_ms, token throughput and token means leave them out (does the server honour stream_options.include_usage?)',
  'run.warn.not_streamed':
    '{n} successful request(s) were not streamed: a non-streaming response arrives whole, with no per-token times, so ttft_ms, ttfr_ms, tpot_ms, itl_ms, max_gap_ms and ttft_from_planned_ms leave them out (null when no request streamed); e2e_ms is their latency',
  'run.warn.truncated':
    '{n} request(s) were truncated: they stopped at a token limit (finish_reason length) before the output length they asked for, or asked for none (outcome length)',
  'run.warn.retries': '{n} retry attempt(s): each request counts once, by its final attempt',
  'run.warn.cancelled_unsent':
    '{n} request(s) were cancelled before being sent (interrupted run, a fail-fast stop, or a server that stopped answering); they count as failed',
  'run.warn.zero_window': 'the measurement window has zero length: throughputs are null',
  'run.warn.rate_behind':
    'achieved send rate {achieved} rps is below the target {target} rps: the generator fell behind or the concurrency cap held requests back (see lateness_ms, queue_ms)',
  'run.warn.event_loop':
    "client event-loop delay p99 is {p99} ms (> {max} ms): tail latencies may include the client's own lag",
  'run.warn.cpu': 'client CPU at {cpu}% (> {max}%): the load generator may be the bottleneck',
  'run.warn.littles_law':
    "Little's law: measured in-flight {measured} vs predicted {predicted} (gap {pct}%): the run did not reach a steady state (a queue built up during sending, or the client did not keep its users busy)",
  'run.limit.planned':
    'plans {n} requests, over the most one run plans ({max}): one run holds its plan and its records in memory',
  'run.prompts.bad_utf8':
    'warning: {file} is not valid UTF-8 (first bad byte at offset {offset}): its undecodable bytes were replaced with U+FFFD, so the prompts sent differ from the file',
  'run.limit.planned_hint':
    'split the load into runs of at most {max} requests each (fewer --requests or --warmup, a lower --rate or a shorter --duration)',
  'run.spec.line':
    'speculative decoding ({source}): acceptance rate {rate} (accepted/drafted), mean accepted length {length} tokens per verify pass, draft efficiency {eff}',
  'run.spec.why':
    'each verify pass ran {verified} positions per request for {length} kept: {wasted} of its compute was thrown away. That is nearly free while decode is memory-bound (small batches read the same weights whatever the query width) and a cost once a large batch makes the step compute-bound, where the speed-up shrinks and then reverses',
  'run.spec.null.no_data':
    'no speculative-decoding data: the engine exposed no spec-decode counters and no response carried draft timings',
  'run.spec.null.no_drafts': "nothing was drafted in this run (ngram: the prompts' n-grams did not repeat)",
  'run.spec.null.drafts_not_reported':
    'the engine does not report the number of drafts: mean accepted length and draft efficiency unknown',
  'run.spec.ngram_prior':
    'ngram acceptance assumed {alpha} per position (synthetic prompts carry no text to match; source: prompt lookup decoding accepts {mat} tokens per step in {source}); give a dataset with text (--dataset, --prompts), or set acceptance_rate in --speculative-config, to measure it',
  'run.spec.source.metrics': 'engine /metrics',
  'run.spec.source.sglang_gauges': "SGLang's gauges, mean of the readings",
  'run.spec.source.llamacpp_timings': 'llama.cpp timings, summed over responses',
} as const;
