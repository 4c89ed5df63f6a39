/**
 * Prose of the "source" section (keys `source.*`): the labels of the source map and one short
 * note per row of `report/source-map` saying what a learner should look at in that function.
 * Code names (`Scheduler.schedule`, `max_num_seqs`) stay as they are in both languages.
 */
export const source = {
  'source.object.entry': 'service entry',
  'source.object.request-state': 'request state',
  'source.object.scheduler': 'scheduler',
  'source.object.kv-cache': 'KV / prefix cache',
  'source.object.executor': 'execution backend',
  'source.engine.vllm': 'vLLM V1',
  'source.engine.sglang': 'SGLang',
  'source.engine.llamacpp': 'llama.cpp',
  'source.engine.servelab-sim': "servelab's simulator",

  // ---- vLLM V1 ----------------------------------------------------------------------------
  'source.vllm.create_chat_completion':
    'Renders the chat template and tokenises (render_chat_request) before the request reaches the engine: a cost paid per request, whatever the load.',
  'source.vllm.generate':
    "The API server's side of a request: it processes the input, registers the request with the OutputProcessor and sends it to EngineCore, which runs in its own process.",
  'source.vllm.output_handler':
    "Pulls each step's outputs from EngineCore and pushes them into every stream, in chunks; if tokens left here on time, a gap the client saw was on the client's side.",
  'source.vllm.prometheus':
    "Sets the gauges servelab scrapes (vllm:num_requests_waiting, vllm:num_requests_running, vllm:kv_cache_usage_perc) and the vllm:num_preemptions counter from each step's stats.",
  'source.vllm.request_status':
    'The states a request moves through: WAITING, RUNNING and PREEMPTED; FINISHED_LENGTH_CAPPED is what the API reports as finish_reason length.',
  'source.vllm.schedule':
    'One token budget per step (max_num_batched_tokens): running requests are served first, then waiting ones while fewer than max_num_seqs run; a long prompt gets only what is left, as a chunk.',
  'source.vllm.preempt':
    'When allocate_slots finds no room, a running request is freed, reset to zero computed tokens and put back at the front of the waiting queue: its stream stops until it is recomputed.',
  'source.vllm.update_from_output':
    "Applies the step's sampled tokens to each request, checks the stop conditions and frees the requests that finished.",
  'source.vllm.check_stop':
    'Ends a request at max_tokens or max_model_len with FINISHED_LENGTH_CAPPED: the finish_reason length that the truncation rule counts.',
  'source.vllm.grammar_bitmask':
    'Builds the grammar mask that keeps structured output inside its schema at each step; it does not end the request, so max_tokens can still cut the answer short.',
  'source.vllm.engine_step':
    "One engine iteration: schedule, execute_model, update_from_output. Without speculative decoding each running request gets at most one new token per step, so the step time is every stream's token gap.",
  'source.vllm.get_computed_blocks':
    'The prefix-cache lookup: the longest run of cached full blocks of the prompt (never the whole prompt, since the last token is always recomputed).',
  'source.vllm.allocate_slots':
    'Allocates the KV blocks a step needs and returns None when the pool is full; that None is what makes the scheduler preempt.',
  'source.vllm.available_memory':
    'Sizes the KV cache: total memory × gpu_memory_utilization minus the peak of a profiling run; a larger fraction, or fp8 KV, gives more blocks.',
  'source.vllm.warm_up':
    'What vLLM does before it serves: warm-up runs per batch size and CUDA-graph capture (capture_model, skipped with enforce_eager); a slow first request paid for what this did not cover.',
  'source.vllm.execute_model':
    'One forward pass over the tokens scheduled in a step, prefill chunks and decodes together; its time grows with those tokens and with the KV that attention reads.',
  'source.vllm.all_reduce':
    "With tensor parallelism, the layers' partial results are summed across GPUs here; over a slow link this costs more than splitting the work saves.",
  'source.vllm.eagle_propose':
    'The EAGLE/MTP drafter: one pass of the draft head over the tokens the step emitted, then k − 1 passes of one token per request; the k drafts it returns are verified by the next step, where the rejected ones roll back (Scheduler.update_from_output).',
  'source.vllm.quant_config':
    "Maps --quantization to its config class; follow that method's apply() to the GEMM kernel a quantised layer runs at your batch size.",

  // ---- SGLang -----------------------------------------------------------------------------
  'source.sglang.launch_server':
    'The process layout: HTTP server and TokenizerManager in the main process, Scheduler and DetokenizerManager in their own, talking over ZMQ.',
  'source.sglang.server_warmup':
    'Before it reports ready, SGLang sends one warm-up /generate request (unless --skip-server-warmup).',
  'source.sglang.serving_chat':
    'Handles /v1/chat/completions: applies the chat template to the messages and builds the request for the TokenizerManager.',
  'source.sglang.stream_content':
    "Writes each streamed delta as an SSE chunk; if chunks left here on time, a gap the client saw was on the client's side.",
  'source.sglang.generate_request':
    'Tokenises the request (_tokenize_one_request) in the main process, sends it to the scheduler and waits for its outputs.',
  'source.sglang.check_finished':
    'Stops a request at max_new_tokens with FINISH_LENGTH (finish_reason length), or when its grammar terminates, or on an EOS token or stop string.',
  'source.sglang.event_loop':
    "The scheduler's loop: receive requests, pick the next batch (get_next_batch_to_run), run it and process its result, one batch per iteration.",
  'source.sglang.prefill_adder':
    "Admits waiting requests into a prefill batch against two budgets: rem_chunk_tokens (--chunked-prefill-size) and the KV left after reserving new_token_ratio of the running decodes' remaining tokens.",
  'source.sglang.calc_priority':
    'Orders the waiting queue: lpm puts the longest radix-cache match first, and falls back to first-come order when more than 128 requests wait.',
  'source.sglang.retract_decode':
    'When decode memory runs out (check_decode_mem), frees decoding requests until the rest fit and re-estimates new_token_ratio; the retracted requests go back to the queue and are recomputed.',
  'source.sglang.match_prefix':
    'The prefix-cache lookup: the longest cached prefix in the radix tree, splitting a node at the match boundary and refreshing its access time.',
  'source.sglang.evict':
    'Frees unlocked leaves, in eviction-policy order, when the pool needs room; prefixes held by running requests are locked and stay.',
  'source.sglang.forward_batch_generation':
    'One forward pass of a batch and its sampling; this worker is also where max_running_requests gets its default from the KV pool size.',
  'source.sglang.cuda_graph_capture':
    'Captures a CUDA graph per batch size at start-up; at run time a decode batch is padded up to the next captured size.',
  'source.sglang.all_reduce':
    "With tensor parallelism, the layers' partial results are summed across GPUs here; over a slow link this costs more than splitting the work saves.",
  'source.sglang.quant_config':
    "Maps --quantization to its config class (some methods come from vLLM); follow that method's linear layer to the kernel it runs.",
  'source.sglang.eagle_verify':
    "EAGLE's verify pass: the target runs over every request's draft tree in one forward (TARGET_VERIFY), keeps the accepted tokens and frees the KV slots of the rejected ones; accept_length_per_req is what the acceptance metrics count.",
  'source.sglang.metrics':
    'Defines the gauges servelab scrapes: sglang:num_queue_reqs, sglang:num_running_reqs, sglang:token_usage, sglang:cache_hit_rate and the retraction count.',

  // ---- llama.cpp --------------------------------------------------------------------------
  'source.llamacpp.server_main':
    'Registers the routes (/v1/chat/completions, /metrics …) on the HTTP server and starts the server context that owns the slots.',
  'source.llamacpp.chat_params':
    'Turns an OpenAI chat request into llama.cpp parameters and renders the chat template (common_chat_templates_apply) in the HTTP thread, before the task is queued.',
  'source.llamacpp.warmup':
    'Loads the model and, unless --no-warmup, decodes one tiny batch and clears it, so the first request does not pay for it.',
  'source.llamacpp.server_slot':
    "A slot is llama.cpp's request state: its own KV sequence (n_ctx per slot), the cached prompt tokens and a state from IDLE to GENERATING; --parallel sets how many slots there are.",
  'source.llamacpp.process_single_task':
    'A new task takes an idle slot or is deferred until one frees: requests beyond --parallel wait here (llamacpp:requests_deferred). llama.cpp never preempts a running slot.',
  'source.llamacpp.update_slots':
    'One iteration: every generating slot adds its sampled token, pending prompt tokens are added up to n_batch (with continuous batching), and the batch is decoded in n_batch pieces.',
  'source.llamacpp.get_available_slot':
    'Prompt reuse: picks the idle slot whose cached tokens share the longest common prefix with the prompt (--slot-prompt-similarity), else the least recently used one.',
  'source.llamacpp.prompt_cache':
    "The RAM prompt cache (--cache-ram MiB, 0 turns it off): a slot's KV state is saved when the slot is reused and loaded back for a later prompt with a common prefix, so with a few slots many distinct prompts can still hit the cache (cache_n in timings).",
  'source.llamacpp.process_token':
    "Stops a slot at the generation limit (n_predict, STOP_TYPE_LIMIT: finish_reason length), at EOS or a stop word, or when the slot's context is full.",
  'source.llamacpp.send_partial_response':
    "Queues each streamed token for the HTTP thread; if tokens left here on time, a gap the client saw was on the client's side.",
  'source.llamacpp.find_slot':
    'Looks for free KV cells for a micro-batch; when none are found the batch cannot be placed and llama_context::decode returns 1.',
  'source.llamacpp.decode':
    'Splits a batch into micro-batches of n_ubatch tokens, places each in the KV cache and computes its graph; a long prompt is several micro-batches.',
  'source.llamacpp.get_n_kv':
    'How many KV cells attention reads: the used cells rounded up (by at least 256), so a decode step slows as the cache fills.',
  'source.llamacpp.mul_mat':
    'Chooses the matrix kernel by weight type and batch size: vector kernels (MMVQ) for a few tokens, MMQ or cuBLAS for larger batches.',
  'source.llamacpp.timings':
    "Writes each response's timings; with a draft model (-md) they carry draft_n and draft_n_accepted, the drafted and accepted tokens servelab sums for the acceptance rate.",
  'source.llamacpp.split_params':
    'Where --split-mode and --tensor-split reach the model loader: how layers (or rows) are spread over the GPUs.',

  // ---- servelab's simulator ---------------------------------------------------------------
  'source.sim.handler':
    'Builds the simulator behind its OpenAI-compatible routes (options, engine, real-time driver, tokenizer); requests are parsed, queued to the engine and streamed from here.',
  'source.sim.api_server_queue':
    "The API server's own work, modelled as a queue before the engine (input) and after each step (output chunks); its constants can be calibrated.",
  'source.sim.chat_template':
    "The simulator's chat template: what a chat request adds to the prompt before it is tokenised.",
  'source.sim.engine_req':
    "vLLM's Request in the simulator: numComputed against numTokens, the stop length, and finishReason length when max_tokens cuts the answer.",
  'source.sim.vllm_v1_schedule':
    "vLLM V1's Scheduler.schedule: running requests first under one token budget, then waiting ones up to max_num_seqs, long prompts in chunks.",
  'source.sim.sglang_schedule':
    "SGLang's policy: a prefill batch on its own when one can be formed (chunked at chunked_prefill_size), else a decode batch; lpm ordering with a first-come fallback.",
  'source.sim.preempt':
    "vLLM's recompute preemption: the request's blocks are freed, its computed tokens reset to 0, and it waits at the front of the queue.",
  'source.sim.kv_cache_manager':
    "vLLM's block manager: prefix lookup by chained block hashes, allocation that fails when the pool is full, and the usage gauge.",
  'source.sim.radix_cache':
    "SGLang's radix tree: prefix lookup by tokens, and eviction of unlocked leaves when the pool needs room.",
  'source.sim.engine_core':
    'The step loop: schedule, cost the forward pass, sample; cold_start_ms is added to the first step.',
  'source.sim.cost_model':
    'The step time: GEMMs (with dequantisation overhead), attention over the KV read, per-step overheads, CUDA-graph padding and the tensor-parallel all-reduce.',
  'source.sim.driver':
    "Delivers each step's tokens at wall time; a step delivered late counts as the simulator falling behind, so a gap can be told from the client's.",
  'source.sim.metrics':
    'Serves the vLLM- or SGLang-named gauges and counters on /metrics, from the engine stats.',
  'source.sim.calibrate':
    "Fits the cost model's constants to measured runs (Levenberg–Marquardt), so the simulator matches a real engine.",
} as const;
