/**
 * Prose of the "diagnose" section (keys `diagnose.*`): the validity reasons, each rule's
 * symptom, evidence, mechanism and next experiment (src/analysis/diagnose/), and the headings of
 * the grouped console diagnosis. Numbers come in rounded, as placeholders.
 */
export const diagnose = {
  // ---- the console diagnosis (report/diagnose/render) ----
  'diagnose.verdict.valid': 'valid: true',
  'diagnose.verdict.invalid': 'valid: false',
  'diagnose.verdict.partly': ' (some checks could not run: see "not checked")',
  'diagnose.render.not_checked': 'not checked',
  'diagnose.render.findings_none': 'findings: none',
  'diagnose.render.symptom': 'symptom:',
  'diagnose.render.evidence': 'evidence:',
  'diagnose.render.requests': 'requests:',
  'diagnose.render.mechanism': 'mechanism:',
  'diagnose.render.next': 'next:',
  'diagnose.render.unexplained': 'unexplained',
  'diagnose.render.runs': ' ({n} runs)',
  'diagnose.render.evidence_at': 'at {level}, the last of {n}:',
  'diagnose.level.concurrency': 'concurrency {x}',
  'diagnose.level.concurrency_range': 'concurrency {from}–{to}',
  'diagnose.level.concurrency_list': 'concurrency {list}',
  'diagnose.level.rate': 'rate {x} rps',
  'diagnose.level.rate_range': 'rate {from}–{to} rps',
  'diagnose.level.rate_list': 'rate {list} rps',
  'diagnose.severity.info': 'INFO',
  'diagnose.severity.warn': 'WARN',
  'diagnose.severity.critical': 'CRITICAL',

  // ---- checks that could not run ----
  'diagnose.skipped.no_records_vllm':
    'no per-request records: a vLLM result file carries summary statistics and per-request durations, not the send and token times servelab records',
  'diagnose.skipped.no_records':
    'no per-request records (no requests.jsonl next to its report.json, and none embedded)',
  'diagnose.skipped.vllm_validity':
    'a vLLM result file records no planned send times, no client health, no usage counts per request and no server series; only the error rate is checked',
  'diagnose.skipped.vllm_truncation':
    'a vLLM result file records no finish reasons, so truncation cannot be told from a normal stop',
  'diagnose.skipped.vllm_ttft_p90':
    'no TTFT p90 in the file (vLLM writes only its --metric-percentiles, default 99)',

  // ---- validity reasons ----
  'diagnose.validity.lateness':
    'generator lateness p99 {late} ms > {max} ms: requests left later than planned, so the offered load was not the one asked for',
  'diagnose.validity.event_loop_lag':
    "client event-loop delay p99 {p99} ms > {max} ms: token times include the client's own lag",
  'diagnose.validity.client_cpu': 'client CPU {cpu}% > {max}%: the load generator may be the bottleneck',
  'diagnose.validity.usage_missing':
    '{n} successful request(s) carried no usage.completion_tokens: token counts and TPOT leave them out',
  'diagnose.validity.token_mismatch':
    'client usage.completion_tokens sum {client} vs server generation-token counter +{server} ({pct}% apart): usage or the counter is wrong, or other traffic hit the server',
  'diagnose.validity.cache_hits':
    "{pct}% of the prompt tokens were prefix-cache hits in a run meant to be cold (fresh prompts): its TTFT is a warm cache's, not a cold one's",
  'diagnose.validity.cache_hits_seen':
    "{pct}% of the prompt tokens were prefix-cache hits in a run meant to be cold (synthetic prompts, no warm-up): the server had seen these prompts before (the same --seed {seed} run again?); its TTFT is a warm cache's, not a cold one's (run without --seed for fresh prompts)",
  'diagnose.validity.cache_hits_llamacpp':
    "{pct}% of the prompt tokens were prompt-cache hits in a run meant to be cold (fresh prompts): llama-server reuses the longest common prefix of a slot's last prompt and of the prompts kept in its RAM prompt cache (--cache-ram, server_prompt_cache), so a few -np slots still find many prompts; its TTFT is a warm cache's, not a cold one's (start llama-server with --cache-ram 0, or send cache_prompt: false)",
  'diagnose.validity.cache_hits_preempted':
    "{pct}% of the prompt tokens were prefix-cache hits in a run meant to be cold (fresh prompts), beyond what recomputation after its {preemptions} preemption(s) can explain (the counters say {raw}%, of which up to {recomputed} tokens are preempted requests finding their own blocks again): its TTFT is a warm cache's, not a cold one's",
  'diagnose.validity.sim_behind':
    "the simulator fell behind real time on {behind} step(s) (servelab_sim_behind_total +{behind}): it delivered their tokens late, so token times include the simulator's own lag; that is not the engine being slow ({fix})",
  'diagnose.validity.sim_behind_of':
    "the simulator fell behind real time on {behind} of {steps} step(s) (servelab_sim_behind_total +{behind}): it delivered their tokens late, so token times include the simulator's own lag; that is not the engine being slow ({fix})",
  'diagnose.validity.sim_behind_fix_file':
    'set `clock: virtual` on the sim target in the experiment file: the simulator then runs in virtual time and cannot fall behind; or give it a quieter core',
  'diagnose.validity.sim_behind_fix_cli':
    'measure the same load in virtual time with `servelab plan` (the same flags, with --model and --gpu), where the simulator cannot fall behind; or give `servelab sim` a quieter core and fewer streams',
  'diagnose.validity.error_rate': 'error rate {pct}% > {max}%: latencies describe only the survivors',
  'diagnose.validity.server_gone':
    'the server stopped answering at t={at} s: {n} requests got connect errors after it and {unsent} were not sent; the run measured a dead server (restart it and run again)',
  'diagnose.validity.littles_law':
    "Little's law off by {pct}% (measured in flight {measured}, predicted {predicted}): the run never reached a steady state",

  // ---- engine terms ----
  'diagnose.engine.prefill_interference_vllm':
    "a long prompt's prefill chunk shares the engine step with the running decodes, so every decode waits for the whole chunk (chunked prefill bounds it by max_num_batched_tokens)",
  'diagnose.engine.prefill_interference_sglang':
    'SGLang runs a prefill batch on its own, so every running decode waits for each prefill chunk (chunked prefill bounds it by --chunked-prefill-size; --enable-mixed-chunk lets decodes share the step)',
  'diagnose.engine.prefill_interference_llamacpp':
    "with continuous batching (--cont-batching, on by default) a prompt's tokens share each llama_decode batch with the running slots' next tokens, so every decode waits for the prompt chunk (-b/-ub bound the chunk)",
  'diagnose.engine.queue_full_vllm': 'max_num_seqs or KV capacity reached',
  'diagnose.engine.queue_full_sglang': '--max-running-requests or KV capacity reached',
  'diagnose.engine.queue_full_llamacpp':
    'every one of the -np/--parallel slots was busy; llama-server defers a request until a slot frees, counted in `llamacpp:requests_deferred`',
  'diagnose.engine.kv_capacity_vllm':
    'kv_cache_dtype fp8 (twice the KV capacity), or raise gpu_memory_utilization; at the same high concurrency throughput should rise and preemptions drop',
  'diagnose.engine.kv_capacity_sglang':
    '--kv-cache-dtype fp8_e5m2 (twice the KV capacity), or raise --mem-fraction-static; at the same high concurrency throughput should rise and retractions drop',
  'diagnose.engine.kv_capacity_llamacpp':
    'a larger -c/--ctx-size (the KV cache is sized by it, split over the -np/--parallel slots), or --cache-type-k q8_0 --cache-type-v q8_0 (half of F16); at the same concurrency throughput should rise',
  'diagnose.engine.context_window_vllm':
    'max_model_len allows {ctx} tokens of prompt plus output per request',
  'diagnose.engine.context_window_sglang':
    '--context-length allows {ctx} tokens of prompt plus output per request',
  'diagnose.engine.context_window_llamacpp':
    'the per-slot context is {ctx} tokens (llama-server splits -c/--ctx-size evenly over the -np/--parallel slots: n_ctx_slot), and a slot whose context is full ends its request',

  // ---- cold start ----
  'diagnose.cold_start.symptom':
    'the first {k} request(s) were slow, then TTFT settled: first TTFT {first} ms vs steady median {base} ms',
  'diagnose.cold_start.ev_leading': 'leading slow requests: {k} (TTFT {list} ms)',
  'diagnose.cold_start.ev_steady': 'steady TTFT p50: {base} ms (second half of the run)',
  'diagnose.cold_start.ev_after': 'TTFT p90 after them: {p90} ms',
  'diagnose.cold_start.ev_warmup': 'warm-up requests: {n}',
  'diagnose.cold_start.mechanism':
    'cold start: the engine paid one-off costs on its first requests (weight loading or lazy init, torch.compile/CUDA graph capture, allocator growth, cold prefix cache); they are not steady-state latency',
  'diagnose.cold_start.mechanism_llamacpp':
    "cold start: llama-server paid one-off costs on its first requests (model pages read in through `mmap`, the first batches' compute buffers, empty slots and prompt cache; its start-up warm-up decode is skipped with --no-warmup); they are not steady-state latency",
  'diagnose.cold_start.next':
    'run it twice against a freshly started server: once with warmup: 0 (cold), once with warmup: 5 (warm); report the first request of the cold run separately',

  // ---- high TTFT ----
  'diagnose.high_ttft.no_records':
    'TTFT p90 {p90} ms is high while TPOT p50 is {tpot} ms, but without per-request records queueing, prefill and front-end cost cannot be told apart',
  'diagnose.high_ttft.no_records_vllm':
    "TTFT p90 {p90} ms is high while TPOT p50 is {tpot} ms (vLLM's definitions), but without per-request records queueing, prefill and front-end cost cannot be told apart",
  'diagnose.high_ttft.symptom':
    'high time to first token (p90 {p90} ms) while decoding runs at {tpot} ms/token',
  'diagnose.high_ttft.ev_ttft': 'TTFT p50 {p50} ms, p90 {p90} ms',
  'diagnose.high_ttft.ev_tpot': 'TPOT p50 {tpot} ms (decode normal: TTFT p50 is {ratio}× a token)',
  'diagnose.ttft_share.ev':
    'TTFT p99 tail ({n} requests, mean {ttft} ms): {queue} queue, {prefill} prefill, {rest} network and API server',
  'diagnose.ttft_share.ev_no_queue':
    'TTFT p99 tail ({n} requests, mean {ttft} ms): {prefill} prefill, {rest} network, API server and waiting (the engine reports no queue time)',
  'diagnose.high_ttft.ev_fit': 'TTFT ≈ {a} ms + {b} ms per 1k input tokens (R² {r2})',
  'diagnose.high_ttft.ev_fit_flat': 'TTFT ≈ {a} ms + {b} ms per 1k input tokens (R² {r2}): flat',
  'diagnose.high_ttft.unexplained_series':
    'TTFT p90 {p90} ms is high while TPOT p50 is {tpot} ms, but queueing, prefill and front-end cost cannot be told apart (no waiting requests seen; input lengths {lens})',
  'diagnose.high_ttft.unexplained_no_series':
    'TTFT p90 {p90} ms is high while TPOT p50 is {tpot} ms, but queueing, prefill and front-end cost cannot be told apart (no server series scraped; input lengths {lens})',
  'diagnose.high_ttft.lens_spread': 'do not explain it',
  'diagnose.high_ttft.lens_alike': 'all alike',
  'diagnose.high_ttft_queueing.mechanism':
    'queueing: requests waited in the engine for a running slot or KV blocks before their prefill started ({why})',
  'diagnose.high_ttft_queueing.ev_waiting': 'server waiting: max {max}, mean {mean}',
  'diagnose.high_ttft_queueing.ev_running': 'server running: max {max}',
  'diagnose.high_ttft_queueing.ev_kv': 'KV usage: max {pct}%',
  'diagnose.high_ttft_queueing.ev_kv_none': 'KV usage: no data (the server exports no KV-usage gauge)',
  'diagnose.high_ttft_queueing.next':
    "sweep concurrency below and above the engine's {maxSeqs}; TTFT should track the waiting series, and rise only past saturation",
  'diagnose.high_ttft_prefill.mechanism':
    'prefill: TTFT grows with the prompt length, so the time is the prefill itself (compute-bound attention and GEMMs over the prompt)',
  'diagnose.high_ttft_prefill.ev_inputs': 'input tokens {min}–{max}',
  'diagnose.high_ttft_prefill.next':
    'compare short and long prompts at concurrency 1; try prefix caching or a larger {batchTokens} for long prompts',
  'diagnose.high_ttft_frontend.mechanism':
    'a fixed per-request cost before prefill: chat-template rendering, tokenisation or detokenisation in the API server (TTFT does not depend on input length and requests did not overlap)',
  'diagnose.high_ttft_frontend.ev_inflight': 'mean requests in flight at send: {n}',
  'diagnose.high_ttft_frontend.next':
    "send the same prompt through /v1/completions (no chat template) and /v1/chat/completions; scrape /metrics to read the engine's own queue and prefill times",

  // ---- pauses mid-generation ----
  'diagnose.pauses.symptom': '{n} pause(s) mid-generation longer than {thr} ms (max {max} ms)',
  'diagnose.pauses.ev_stall_p': 'stall p50 {p50} ms, max {max} ms',
  'diagnose.pauses.unexplained':
    "{n} mid-generation pause(s) above {thr} ms (max {max} ms) that coincide with no other request's prefill and no client lag",
  'diagnose.stall_prefill_interference.timeline_server':
    "with the server's own prefill windows (its per-request timings)",
  'diagnose.stall_prefill_interference.timeline_client':
    "from the client's records: each prompt's [sent, first token] window, queueing included",
  'diagnose.stall_prefill_interference.ev_threshold':
    'stall threshold {thr} ms ({stalls} stalls in {gaps} gaps; median gap {median} ms)',
  'diagnose.stall_prefill_interference.ev_overlap_any':
    "{n} of {stalls} stalls ({pct}%) overlap another request's prefill ({server} of {windows} prefill windows timed by the server, the rest [sent, first token])",
  'diagnose.stall_prefill_interference.ev_culprits_any': 'prefills overlapping them: {ids}',
  'diagnose.stall_prefill_interference.ev_ratio_any':
    "stall ratio {ratio}: mean chunk gap {ov} ms over {ovn} gaps overlapping another request's prefill vs {cl} ms over {cln} clean gaps, {timeline}",
  'diagnose.stall_prefill_interference.ev_p99_any':
    "chunk gap p99 {ov} ms while another request's prefill overlaps vs {cl} ms otherwise",
  'diagnose.stall_prefill_interference.ev_long': 'long prompts (≥ {cut} tokens): {ids}',
  'diagnose.stall_prefill_interference.symptom_slowed':
    'decoding slows while long prompts prefill: chunk gaps average {ov} ms while a long prefill overlaps them vs {cl} ms otherwise (stall ratio {ratio})',
  'diagnose.stall_prefill_interference.ev_ratio':
    'stall ratio {ratio}: mean chunk gap {ov} ms over {ovn} gaps overlapping a long prefill vs {cl} ms over {cln} clean gaps, {timeline}',
  'diagnose.stall_prefill_interference.ev_p99':
    'chunk gap p99 {ov} ms while a long prefill overlaps vs {cl} ms otherwise',
  'diagnose.stall_prefill_interference.mechanism': 'long-prefill interference: {how}',
  'diagnose.stall_prefill_interference.next':
    "repeat with {batchTokens} halved (smaller prefill chunks): the stalls should shrink and the long prompts' TTFT grow",
  'diagnose.stall_client.ev_threshold': 'stall threshold {thr} ms',
  'diagnose.stall_client.ev_shared': '{n} stalls shared by most streams at once',
  'diagnose.stall_client.ev_loop': 'client event-loop delay max {max} ms, p99 {p99} ms',
  'diagnose.stall_client.ev_loop_at':
    "client event-loop delay during these stalls: max {max} ms, p50 {p50} ms (the run's max {runMax} ms)",
  'diagnose.stall_client.mechanism':
    "client-side gap: the load generator's event loop (or its CPU) paused, so chunks that had arrived were time-stamped late for every stream at once; the server did not stall",
  'diagnose.stall_client.next':
    "rerun with fewer concurrent streams per client process (or on a less loaded machine); the stalls should vanish if they were the client's",
  'diagnose.stall_preemption.ev_threshold':
    'stall threshold {thr} ms; {n} stalls with no long prefill or client lag behind them',
  'diagnose.stall_preemption.ev_server': 'server preemptions +{n}, KV usage max {pct}%',
  'diagnose.stall_preemption.mechanism':
    'preemption: the KV cache filled, the scheduler evicted running requests and recomputed them later, so each evicted stream paused for the wait plus the recompute',
  'diagnose.stall_preemption.mechanism_retraction':
    "retraction (SGLang's preemption): the KV cache filled, the scheduler evicted running requests and recomputed them later, so each evicted stream paused for the wait plus the recompute",
  'diagnose.stall_preemption.next':
    'switch: {kvFp8} (or a lower {maxSeqs}) at the same load: preemptions and the long gaps should disappear',
  'diagnose.stall_preemption.next_retraction':
    'switch: {kvFp8} (or a lower {maxSeqs}) at the same load: retractions and the long gaps should disappear',

  // ---- batch growth ----
  'diagnose.stall_batch_growth.source_series': 'server running series',
  'diagnose.stall_batch_growth.source_inflight': 'requests in flight (client records)',
  'diagnose.stall_batch_growth.symptom':
    'decode gaps grow with the batch: gap p50 {lo} ms at ≤ {loB} running vs {hi} ms at ≥ {hiB} running ({ratio}×)',
  'diagnose.stall_batch_growth.ev_gaps':
    "{n} chunk gaps that overlap no other request's prefill (batch size from the {source})",
  'diagnose.stall_batch_growth.ev_batch': 'batch size p10 {lo}, p90 {hi}',
  'diagnose.stall_batch_growth.ev_deciles':
    'gap p50 at the low-batch decile: {lo} ms ({lon} gaps); at the high-batch decile: {hi} ms ({hin} gaps)',
  'diagnose.stall_batch_growth.ev_rho': 'Spearman rank correlation of gap vs batch size: {rho}',
  'diagnose.stall_batch_growth.mechanism':
    'batch growth: in continuous batching every running request gets one token per engine step, and a decode step reads more KV and pays more per-request overhead as the batch grows, so every stream slows as more requests run (no prefill overlapped these gaps)',
  'diagnose.stall_batch_growth.next':
    'sweep concurrency from {lo} to {hi}: TPOT should grow with the batch size; or lower {maxSeqs} to cap the batch and trade throughput for per-stream speed',

  // ---- throughput plateau ----
  'diagnose.plateau.point': '{x}: {v} tok/s',
  'diagnose.plateau.falls_concurrency': 'throughput falls at high concurrency ({curve})',
  'diagnose.plateau.flat_concurrency': 'throughput stops rising at high concurrency ({curve})',
  'diagnose.plateau.falls_rate': 'throughput falls at high rate ({curve})',
  'diagnose.plateau.flat_rate': 'throughput stops rising at high rate ({curve})',
  'diagnose.plateau.unexplained':
    '{symptom}; no KV pressure or client limit seen; compute saturation is the ordinary cause of a plateau (check GPU utilisation)',
  'diagnose.plateau.unexplained_not_scraped':
    '{symptom}; no KV pressure (not scraped) or client limit seen; compute saturation is the ordinary cause of a plateau (check GPU utilisation)',
  'diagnose.kv_pressure.ev':
    '{label}: KV usage max {pct}%, preemptions +{n}, waiting max {waiting}, running max {running}',
  'diagnose.kv_pressure.mechanism':
    'KV-cache pressure: the KV pool is full, so the scheduler admits fewer requests than the load offers and preempts running ones (recompute), capping the batch and wasting work',
  'diagnose.kv_pressure.next': 'switch: {how}',
  'diagnose.client_limit.mechanism':
    'a client-side limit: the load generator could not offer or read the load (event-loop lag, CPU, lateness), so the server was never pushed harder',
  'diagnose.client_limit.next':
    'rerun the high levels from a second client machine (or with --workers) and compare server-side token rates',

  // ---- A/B pairs ----
  'diagnose.ab.side_runs': '{what} ({n} runs)',
  'diagnose.ab.line': '{name} ({what}): {tok} tok/s, TPOT p50 {tpot} ms, TTFT p50 {ttft} ms',
  'diagnose.ab.line_mean':
    '{name} ({what}): mean {tok} tok/s, mean TPOT p50 {tpot} ms, mean TTFT p50 {ttft} ms',
  'diagnose.ab.level_concurrency': 'level: concurrency {c}',
  'diagnose.ab.level_rate': 'level: rate {r} rps',
  'diagnose.ab.level_unspecified': 'level: unspecified',
  'diagnose.quantised_slower.symptom': '{q} is {pct}% slower than {full} in output throughput',
  'diagnose.quantised_slower.mechanism':
    'quantisation cost outweighs its bandwidth saving at this batch: weight-only formats dequantise inside the GEMM, and their kernels are tuned for small batches (memory-bound decode); at a large batch the GEMMs are compute-bound, so the extra work and a less efficient kernel/shape make the step slower',
  'diagnose.quantised_slower.next':
    'cells: {full} and {q}; concurrency: [1, {c}]: expect the quantised cell to win at 1 and lose at the high level',
  'diagnose.multi_gpu_slower.symptom': 'tp={hi} is {pct}% slower than tp={lo} in output throughput',
  'diagnose.multi_gpu_slower.ev_link': 'interconnect: {link}',
  'diagnose.multi_gpu_slower.ev_link_missing': 'interconnect: missing from the record',
  'diagnose.multi_gpu_slower.mechanism':
    'tensor-parallel communication: every layer ends in an all-reduce across GPUs; over a slow interconnect (PCIe) and for a small model the communication costs more than the halved per-GPU compute and bandwidth save',
  'diagnose.multi_gpu_slower.next':
    'switch: tp ({lo} vs {hi}) on a larger model or an NVLink machine; or run {hi} independent replicas (data parallel) instead',

  // ---- truncation ----
  'diagnose.truncation.symptom':
    '{cut} of {n} requests ({pct}%) stopped at the token limit (finish_reason length)',
  'diagnose.truncation.ev_tokens': 'truncated output tokens: p50 {p50}, max {max}',
  'diagnose.truncation.ev_structured':
    'structured output configured ({key}): a truncated answer cannot be valid',
  'diagnose.truncation.ev_unstructured': 'no structured output configured',
  'diagnose.truncation.mechanism_structured':
    'truncation by max_tokens under structured output: the grammar kept the model inside the schema but the answer ran out of tokens before closing it, so the output fails the schema',
  'diagnose.truncation.mechanism':
    "truncation by max_tokens: answers are longer than the limit, so output lengths (and E2E) are the limit, not the model's",
  'diagnose.truncation.next':
    'raise max_tokens (output_len) until finish_reason is stop for ≥ 95% of requests; report output lengths from usage',
  'diagnose.truncation.ev_context':
    '{k} of the cut requests stopped below the {cap} output tokens they asked for, with prompt plus output at {ctx} tokens',
  'diagnose.truncation.mechanism_context':
    'truncation by the context window, not by max_tokens: {window}, so prompt plus output ran into it before the requested output length',
  'diagnose.truncation.next_context':
    'raise {limit} or send shorter prompts until prompt plus max_tokens fits in {ctx} tokens; raising max_tokens changes nothing',

  // ---- tails no rule explains ----
  'diagnose.tail.unexplained': 'E2E p99 {p99} ms is {ratio}× the p50 ({p50} ms) and no rule explains it',
  'diagnose.tail.unexplained_no_records':
    'E2E p99 {p99} ms is {ratio}× the p50 ({p50} ms) and no rule explains it (the per-request rules could not run: no records)',
} as const;
