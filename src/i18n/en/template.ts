/**
 * Prose of the "template" section (keys `tpl.*`): the comments of the `servelab exp init`
 * templates' shared parts (src/exp/template-parts.ts), so that `exp init --lang zh-CN` writes
 * a Chinese file. YAML keys and values stay as they are.
 */
export const template = {
  'tpl.head.title': 'servelab experiment: {kind}',
  'tpl.head.run': 'Run it:  servelab exp run {name}.yaml      (docs/experiments.md documents every field)',
  'tpl.head.description': 'free text, stored with the experiment',
  'tpl.head.lesson':
    'a course lesson this file is (set by exp init lesson-…; its answer then states the lesson)',
  'tpl.sim.clock':
    'virtual: in-process, virtual time (as plan); real: HTTP server, real time (needs idle cores)',
  'tpl.url.intro': 'A running server instead of the simulator:',
  'tpl.url.url': 'base URL ending in /v1',
  'tpl.url.api_key_env': 'name of the variable holding the key (never the key itself)',
  'tpl.url.headers': 'extra request headers',
  'tpl.url.model': 'served model id (default: top-level model)',
  'tpl.url.local': 'server on this machine: probe the GPU with nvidia-smi (default: loopback URL)',
  'tpl.url.metrics_url': 'Prometheus endpoint (default: <server>/metrics)',
  'tpl.url.generation': 'per-target generation overrides (an A/B switch)',
  'tpl.url.extra_body': 'merged into each request body',
  'tpl.url.declared': 'facts servelab cannot probe, recorded as "declared"',
  'tpl.url.declared_more': 'also {fields}',
  'tpl.model': 'Model id sent in requests; sim targets default to their sim model.',
  'tpl.seed':
    'Seed for prompts, lengths and arrivals: the same seed gives the same requests. Left out, each\n`exp run` draws a fresh one (printed, and stored with the experiment): give it to repeat a run.',
  'tpl.generation': 'Generation settings, the same for every target (recorded in the experiment record).',
  'tpl.generation.thinking': "reasoning phase on/off (unset: the engine's default)",
  'tpl.generation.temperature': 'default 0: greedy, as vllm bench serve',
  'tpl.generation.max_tokens': "default: the workload's output_len",
  'tpl.generation.ignore_eos': 'true: generate exactly max_tokens (default: sent only when asked)',
  'tpl.generation.seed': 'per-request sampling seed sent to the server',
  'tpl.workload': 'What each request asks for. Lengths are tokens: 512, uniform:A-B or normal:MEAN,STD.',
  'tpl.workload.dataset': 'or format: prompts (JSONL)',
  'tpl.workload.shared_prefix': 'prompts share one of G prefixes of N tokens',
  'tpl.workload.seed': 'workload seed (default: the top-level seed)',
  'tpl.workload.reuse_prompts':
    'true: the same prompts at every level (a prefix cache then runs later levels warm)',
  'tpl.load': 'How requests arrive. Closed loop: a fixed number in flight; open loop: a rate.',
  'tpl.load.mode': 'closed | open (default: from concurrency/rates)',
  'tpl.load.arrival': 'open loop: constant | poisson | gamma',
  'tpl.load.burstiness': 'gamma shape (1 = Poisson, <1 burstier)',
  'tpl.load.max_concurrency': 'open loop: cap on requests in flight',
  'tpl.load.duration_s': 'instead of requests',
  'tpl.load.timeout_s': 'per request',
  'tpl.load.timeout_ttft_s': 'until the first token',
  'tpl.cache':
    'Prefix cache before measuring: cold (reset through /reset_prefix_cache or /flush_cache),\nwarm (run the workload once first) or as-is.',
  'tpl.cache.routing': 'how requests reach replicas (recorded as declared)',
  'tpl.repeats': 'repeat every measurement (default 1)',
  'tpl.warmup': 'warm-up requests per level, recorded but not measured',
  'tpl.slo': 'Service-level objectives: goodput counts requests meeting all of them.',
  'tpl.thresholds': 'Checks on the summary (any numeric path); a failure exits with code 2.',
  // each kind's own comments (src/exp/kinds/*.ts, its template)
  'tpl.baseline.about':
    'One request at a time against each target: correctness (finish_reason, EOS vs length,\nreasoning/content split), the cold first request apart from the warm ones. Every target\ngets the same generation settings; per-target overrides are refused.',
  'tpl.prefix_cache.about':
    'A long shared document with the question last, in four phases: cold (after a cache\nreset), exact repeat, same document with a new question, and scattered (documents rotated\nso consecutive requests share no prefix). Reports cached tokens, TTFT and the prefill\nestimate per phase.',
  'tpl.concurrency_sweep.about':
    'Closed loop at rising concurrency with the same length distribution. Reports throughput and\np50/p95/p99 per level and the knee: the last level before throughput stops rising or the\ntail blows up. max_num_seqs 8 puts the knee near 8 on this small simulated setup.',
  'tpl.rate_sweep.about':
    'Open loop over a list of rates (requests/s), with the same stop rules as the concurrency\nsweep. Leave load.rates out to derive the rates from the measured capacity\n(sweep.capacity_fractions).',
  'tpl.mixed_input.about':
    'Long and short requests in a controlled arrival order. Reports the stalls of requests\nalready decoding: their chunk gaps while a long prefill overlaps them, against the gaps\nwhile none does. A small token budget (max_num_batched_tokens) makes long prefills chunk.',
  'tpl.ab.about':
    "Exactly one switch between two targets, same workload and seed. Reports each metric's delta\nwith a bootstrap 95% CI; significant only after a Holm correction and above\nmin_effect_pct. A quality check on fixed samples flags a faster config with broken output.",
  'tpl.matrix.about':
    'The load matrix: input/output length cells × concurrency levels, the same workload seed\nin every cell.',
  'tpl.calibration.about':
    'The runs `servelab calibrate EXP_ID --out profile.yaml` fits the simulator to: a decode run\nand a prompt-length sweep at concurrency 1, and a concurrency sweep to saturation. Point\nthe target at your engine (a url target) to calibrate for it; as shipped it measures the\nsimulator on a virtual clock (seconds).',
  'tpl.team_assistant.about':
    "The course's question: a document assistant works for one user; what happens when 32\ncolleagues ask at the same time? Each colleague is a session of 3-6 turns with 10-60 s of\nthinking between an answer and the next question, asking about one of 3 shared documents.\nThe number of users is swept (load.users) and bisected between the last level meeting the\nSLO and the first failing one. Llama-3.1-8B on one simulated L4 puts the answer near the\n32 colleagues. Reports the largest team meeting the SLO, where the wait is\n(queueing, prefill or decode interference) and the prefix-cache hit rate. The simulator runs\nin virtual time, so the whole team finishes in seconds; a url target runs in real time.",
  'tpl.voice.about':
    "The first-audio critical path of voice users (endpointing → ASR → LLM → text chunk →\nTTS → playback) under one switch at a time: the TTS chunk policy, the endpointing window,\nASR colocated with the LLM or on its own GPU, or the number of users. Reports each\ncondition's breakdown of time_to_first_audio_ms beside the LLM's own TTFT, as a waterfall.",
  'tpl.baseline.requests': 'sequential requests per target; the first is the cold one',
  'tpl.prefix.document_tokens': 'length of the shared document',
  'tpl.prefix.documents': 'documents rotated in the scattered phase',
  'tpl.prefix.document_file': 'use this text as the document instead of generated text',
  'tpl.sweep.stop': 'stop the sweep once any rule trips:',
  'tpl.sweep.stop_error_rate': '  error rate above this fraction',
  'tpl.sweep.stop_ttft': "  p99 TTFT above K × the first level's",
  'tpl.sweep.stop_e2e': "  p99 E2E above K × the first level's",
  'tpl.sweep.find_max': 'search the largest concurrency meeting slo (as servelab plan)',
  'tpl.sweep.capacity_fractions': 'used when load.rates is absent',
  'tpl.mixed.spacing': 'gap between arrivals',
  'tpl.ab.switch': 'what differs (recorded)',
  'tpl.ab.alpha': 'family-wise error rate (Holm)',
  'tpl.ab.min_effect': 'smaller deltas are never called significant',
  'tpl.ab.samples': 'fixed prompts sent to both sides',
  'tpl.ab.expected': "exact match with side A's output, or {file: answers.jsonl}",
  'tpl.ab.regex': 'every output must match',
  'tpl.ab.json_schema': 'every output must be valid JSON for this schema (or a .json path)',
  'tpl.matrix.cells': 'at least three',
  'tpl.matrix.concurrency': 'at least two levels',
  'tpl.calibration.decode': 'concurrency 1: TPOT against context length',
  'tpl.calibration.prefill': 'concurrency 1: TTFT against prompt length',
  'tpl.calibration.input_lens': '≥ 3 lengths spanning ≥ 4×, the longest ≥ 1024',
  'tpl.calibration.per_length': 'per length',
  'tpl.calibration.saturation': 'closed loop, up to where the output rate stops growing',
  'tpl.calibration.levels': 'raise the top levels for a bigger model or GPU',
  'tpl.calibration.max_concurrency':
    'then doubled while the output rate still grows by 10% or more, up to this level',
  'tpl.calibration.requests': 'per level (default: max(16, 3 × level))',
  'tpl.team.colleagues': 'the team the question is about',
  'tpl.team.bisect': 'bisect between the last level meeting the SLO and the first failing',
  'tpl.team.attainment': 'share of planned turns that must meet every SLO',
  'tpl.team.min_turns': 'fewest turns a level is judged on: runs of the same users pooled until then',
  'tpl.team.time_scale': 'divide think times and ramp-up by this (tests, smoke runs)',
  'tpl.voice.vary': 'the one switch: tts_chunk | endpoint_ms | asr_gpu | concurrency',
  'tpl.voice.values': 'one condition each (tts_chunk: sentence, chars:N, whole)',
  'tpl.voice.base': 'everything that does not vary',
  'tpl.voice.endpoint': 'silence after speech before the turn is over',
  'tpl.voice.asr_gpu': 'sim targets: colocated | separate',
  'tpl.voice.concurrency': 'simulated users',
  'tpl.voice.turns': 'planned turns per condition',
  'tpl.voice.speech': 'generated audio per turn (seconds)',
  'tpl.voice.output_len': 'LLM max_tokens per turn (ignore_eos)',
  'tpl.voice.playback': 'jitter buffer before playback',
  'tpl.voice.asr_url': "URL targets: the ASR server (default: the target's URL)",
  'tpl.voice.tts_url': "URL targets: the TTS server (default: the target's URL)",
  'tpl.voice.out': "write each condition's records and waterfall.svg here",
  'tpl.baseline.load': '(one request at a time; baseline.requests sets how many)',
  'tpl.prefix.load': '(one request at a time; prefix_cache sets the counts)',
  'tpl.sweep.requests': 'measured requests per level',
  'tpl.sweep.rates': 'requests per second',
  'tpl.sweep.per_rate': 'per rate',
  'tpl.mixed.load': '(arrivals come from mixed_input; requests, concurrency and rates do not apply)',
  'tpl.ab.the_switch': 'the one switch',
  'tpl.matrix.requests': 'per cell and level',
  'tpl.calibration.ignore_eos': 'every request generates exactly output_len',
  'tpl.calibration.load': '(levels are calibration.saturation.concurrency)',
  'tpl.team.users': 'the levels: users, one session each',
  'tpl.team.turns': 'turns per session',
  'tpl.team.think': 'seconds from an answer to the next question',
  'tpl.team.ramp': 'users start spread over this many seconds',
  'tpl.team.session_rate': 'or: sessions start as Poisson arrivals per second',
  'tpl.team.input': 'each question, tokens',
  'tpl.team.output': 'each answer, tokens',
  'tpl.team.documents': 'shared documents',
  'tpl.voice.load': '(users come from voice.base.concurrency or voice.values; rates do not apply)',
  // the simulator settings' descriptions, as src/sim/settings.ts declares them (a test holds
  // them equal); the English template takes them from the declarations
  'tpl.simopt.tp': 'Tensor-parallel size: the number of GPUs the model is split across.',
  'tpl.simopt.dtype': 'Weight precision; int4 is AWQ/GPTQ-style weight-only quantisation.',
  'tpl.simopt.kv_cache_dtype': 'KV cache precision; auto is 16-bit.',
  'tpl.simopt.max_num_seqs': 'Most requests running in one batch.',
  'tpl.simopt.max_num_batched_tokens':
    'Token budget of one engine step; longer prefills are split into chunks.',
  'tpl.simopt.block_size': 'Tokens per KV cache block.',
  'tpl.simopt.gpu_memory_utilization':
    'Fraction of GPU memory the engine may take for weights, activations and the KV cache.',
  'tpl.simopt.max_model_len': 'Context length: the most prompt and output tokens of one request.',
  'tpl.simopt.enable_prefix_caching':
    'Reuse the KV cache blocks of a prompt prefix computed before (automatic prefix caching).',
  'tpl.simopt.engine':
    "Engine to impersonate: its scheduler, prefix cache, /metrics names, routes and wire format (vllm-v1, vllm-v0 or sglang; docs/sim.md's profile sections).",
  'tpl.simopt.enable_chunked_prefill':
    'vllm-v0: split long prompts into chunks that share steps with decodes (vLLM v1 always does; without it a v0 step is all prefill or all decode).',
  'tpl.simopt.num_scheduler_steps':
    "vllm-v0 multi-step scheduling: run this many decode steps per schedule, streaming each request's tokens that many at a time.",
  'tpl.simopt.schedule_policy':
    'sglang: order of the waiting queue, first come first served (fcfs) or longest prefix match first (lpm).',
  'tpl.simopt.chunked_prefill_size':
    'sglang: most prompt tokens of one prefill step; longer prompts are prefilled in chunks.',
  'tpl.simopt.parallel':
    "llamacpp: server slots (llama.cpp's -np/--parallel): the most requests running at once; the rest wait (deferred).",
  'tpl.simopt.ctx_size':
    "llamacpp: total context (llama.cpp's -c/--ctx-size), split between the slots: each slot holds ctx_size / parallel tokens, rounded up to a multiple of 256.",
  'tpl.simopt.batch_size':
    "llamacpp: most tokens of one llama_decode (llama.cpp's -b/--batch-size): decodes first, then prompt tokens of the slots in order.",
  'tpl.simopt.cache_ram':
    "llamacpp: size of the RAM prompt cache (llama.cpp's --cache-ram; 0 turns it off): a slot's prompt is saved there before the slot is reused, and a later request restores the one sharing its longest prefix.",
  'tpl.simopt.cont_batching':
    "llamacpp: continuous batching (llama.cpp's --cont-batching); off, prompts are processed only in steps with no decoding slot.",
  'tpl.simopt.speculative_config':
    "vllm-v1: speculative decoding as vLLM's --speculative-config: each step proposes num_speculative_tokens per decoding request, verifies them in one pass and keeps the accepted prefix plus one token (docs/sim.md, \"Speculative decoding\"). acceptance_rate is servelab's, not vLLM's: the acceptance to simulate in vLLM's reported units, one number for accepted / drafted tokens or a list for each position's accepted / drafts (default by method; ngram: from the prompt's own repetition, or a published prior when the prompts are synthetic words).",
  'tpl.simopt.cold_start_ms': 'Extra time on the first engine step, as a cold engine takes.',
  'tpl.simopt.record_steps':
    'Record every engine step (its start and duration, the decodes, the prefill chunks with their tokens, KV blocks in use, preemptions): served on GET /servelab/steps, stored with the run as steps.jsonl, drawn by report as the step timeline.',
  'tpl.simopt.api_server_count':
    "API server processes that share the streaming work (vLLM's --api-server-count); each detokenises and writes the chunks of its own streams.",
  'tpl.simopt.catalogue': 'YAML/JSON file with extra GPUs and models, in Hugging Face config.json terms.',
  'tpl.simopt.model_config':
    "A model's Hugging Face config.json to simulate, named after its directory unless --model names it.",
  'tpl.simopt.profile':
    'A calibration profile written by servelab calibrate: simulate the model, GPU and engine it was fitted for with its fitted cost-model constants.',
  'tpl.simopt.seed': 'Seed of the simulated output lengths, text, ids and faults.',
  'tpl.simopt.time_scale':
    'Run the clock this many times faster than real time (demos, tests); engine times stay simulated ms.',
  'tpl.simopt.served_model_name': 'Model id served on /v1/models and accepted in requests.',
  'tpl.simopt.max_waiting':
    'Answer 429 to a request arriving while this many already wait (each waits for its first step, so ≥ 1).',
  'tpl.simopt.reasoning_field':
    'Name of the reasoning delta field: reasoning_content (SGLang, older vLLM) or reasoning (newer vLLM).',
  'tpl.simopt.context_error':
    "Context-length errors as vLLM answers them (400, max_tokens that do not fit refused) or as llama.cpp's server does (400 exceed_context_size_error with n_prompt_tokens and n_ctx; max_tokens clamped to the context).",
  'tpl.simopt.enable_prompt_tokens_details':
    'Report the cached prompt tokens in usage.prompt_tokens_details.',
  'tpl.simopt.expose_timings':
    "Stamp every chunk with the server's emit time and step, and end with a timings object.",
  'tpl.simopt.fault_rate': 'Probability that a request gets one of the faults.',
  'tpl.simopt.faults': 'Faults to draw from; stall:MS pauses the stream for MS ms of engine time.',
  'tpl.simopt.fault_profile':
    'Reproduce an engine-upgrade bug (docs/sim.md, "Fault profiles"): reasoning-renamed, ignore-json-schema, empty-tool-args, abort-as-success.',
  'tpl.simopt.answer_accuracy':
    "Answer the upgrade gate's fixed questions (src/workload/questions.ts) from their known answers, right with this probability (seeded per question), instead of pseudo-text.",
  'tpl.simopt.max_body_bytes':
    'Answer 413 to a request body larger than this, before reading it, and close the connection.',
  'tpl.simopt.sentence_words':
    'End a sentence of the pseudo-text with "." every N words on average (seeded), so a voice client has sentence boundaries to chunk at.',
  'tpl.simopt.asr_fixed_ms':
    "/v1/audio/transcriptions: the fixed part of one transcription's GPU time (engine ms), whatever the audio length.",
  'tpl.simopt.asr_rtf':
    '/v1/audio/transcriptions: real-time factor, GPU ms per ms of audio; a transcription costs asr_fixed_ms + asr_rtf × audio ms.',
  'tpl.simopt.asr_gpu':
    "Where transcriptions run: on the LLM's simulated GPU (colocated: they queue between engine steps and the next step waits for them) or on a GPU of their own (separate: they queue only behind each other).",
  'tpl.simopt.tts_first_byte_ms': '/v1/audio/speech: engine ms from the request to the first audio bytes.',
  'tpl.simopt.tts_rtf':
    '/v1/audio/speech: real-time factor after the first bytes, engine ms of synthesis per ms of audio (each speech stream on its own).',
  'tpl.simopt.tts_chunk_ms': '/v1/audio/speech: milliseconds of audio in each streamed chunk.',
  'tpl.simopt.drain_timeout':
    'On SIGTERM, wait this long (wall seconds) for requests in flight to finish while new ones get 503; then stop.',
} as const;
