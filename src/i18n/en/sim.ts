/**
 * Prose of the "sim" section (keys `sim.*`): what `servelab sim` and `plan` say about the
 * simulator, and the rules between its flags (src/sim/settings.ts crossRules).
 */
export const sim = {
  'sim.fidelity.low':
    'simulator fidelity (low load): median |error| {median}%, max {max}% over {rows} public measurements (docs/fidelity.md)',
  'sim.fidelity.saturation':
    'simulator fidelity (saturation): median |error| {median}%, max {max}% over {rows} public measurements (docs/fidelity.md)',
  'sim.band.line': '{metric} {value} ms, 80% band {low}–{high} ms',
  'sim.band.head':
    'simulator error bands (80%, from leave-one-experiment-out predictions of {n} public vLLM runs; docs/fidelity.md):',
  'sim.band.note': '80% band from leave-one-experiment-out errors on public vLLM runs (docs/fidelity.md)',
  'sim.listening': 'listening on {url} (OpenAI base URL)',
  'sim.draining': 'SIGTERM: draining (new requests get 503); a second signal stops at once',
  'sim.drained': 'drained: every request in flight finished',
  'sim.drain_timeout': 'drain timed out',
  'sim.stopped': 'simulator stopped',
  // src/sim/settings.ts: problems between simulator settings, and the default in a hint
  'sim.setting.default': '{values}; default {default}',
  'sim.rule.fault_rate_needs_faults': 'a fault rate needs a list of faults',
  'sim.rule.fault_rate_needs_faults_hint': 'add e.g. {example}',
  'sim.rule.faults_without_rate': '{faults} is set but {rate} is not',
  'sim.rule.faults_rate_zero': '{faults} is set but {rate} is 0, so no request gets a fault',
  'sim.rule.faults_rate_hint': 'set the fraction of requests to fault, e.g. {example}',
  'sim.rule.file_must_name': 'a file must name the {key} it simulates',
  'sim.rule.file_must_name_hint': 'add {options}',
  'sim.rule.or': ' or ',
  'sim.rule.multi_step': "multi-step scheduling is vLLM v0's; {engine_ref} is {engine}",
  'sim.rule.llamacpp_only': '{setting} is a llama.cpp setting; {engine_ref} is {engine}',
  'sim.rule.lpm': "the lpm schedule policy is SGLang's; {engine_ref} is {engine}",
  'sim.rule.add_or_drop': 'add {add}, or drop {drop}',
  'sim.rule.chunked_prefill': "{setting} is SGLang's; {engine_ref} is {engine}",
  'sim.rule.chunked_prefill_hint': "vLLM bounds a step's prefill by {setting}; or add {add}",
  'sim.rule.unknown_model': 'unknown simulator model {model}',
  'sim.rule.unknown_model_hint': 'built-in models: {models}; or add one with {add}',
  'sim.rule.unknown_gpu': 'unknown simulator GPU {gpu}',
  'sim.rule.unknown_gpu_hint': 'built-in GPUs: {gpus}; or add one with {add}',
  // src/sim/calibrate/format.ts, fit.ts, src/cli/commands/calibrate.ts: the calibration result
  'sim.calibrate.title':
    'calibrated {model} on {tp}× {gpu}, {engine}, dtype {dtype}, kv-cache-dtype {kv}, {servers} API server(s)',
  'sim.calibrate.runs': 'runs',
  'sim.calibrate.constants': 'fitted constants (± one standard error)',
  'sim.calibrate.held':
    'held at their defaults: {keys} (not determined by these runs, or not separable from client-side data; the profile says why for each)',
  'sim.calibrate.moved': 'moved off the defaults: {keys}',
  'sim.calibrate.moved_none':
    'moved off the defaults: none (each fitted value is within its error of the prior)',
  'sim.calibrate.col.fitted': 'fitted',
  'sim.calibrate.col.moved': 'moved',
  'sim.calibrate.yes': 'yes',
  'sim.calibrate.no_kept_prior': 'no (prior kept)',
  'sim.calibrate.residuals': 'residual error (observed − fitted model)',
  'sim.calibrate.col.run': 'run',
  'sim.calibrate.col.label': 'label',
  'sim.calibrate.col.conc': 'conc',
  'sim.calibrate.col.regime': 'regime',
  'sim.calibrate.col.constant': 'constant',
  'sim.calibrate.col.value': 'value',
  'sim.calibrate.col.stderr': '± stderr',
  'sim.calibrate.col.rel': 'rel',
  'sim.calibrate.col.default': 'prior (default)',
  'sim.calibrate.col.from': 'from',
  'sim.calibrate.col.metric': 'metric',
  'sim.calibrate.col.mean_err': 'mean |err|',
  'sim.calibrate.col.max_err': 'max |err|',
  'sim.calibrate.regime.low-load': 'low-load',
  'sim.calibrate.regime.saturated': 'saturated',
  'sim.calibrate.regime.unused': 'unused',
  'sim.calibrate.from.decode': 'decode gaps at low load ({n})',
  'sim.calibrate.from.decode_ctx': 'decode gaps at low load over {tokens} tokens of context',
  'sim.calibrate.from.prefill_lens': 'TTFT at low load, {n} prompt lengths {from}–{to}',
  'sim.calibrate.from.prefill': 'TTFT at low load ({n})',
  'sim.calibrate.from.chunk': 'batch gaps at saturation ({n}, {levels})',
  'sim.calibrate.from.none': 'no runs',
  'sim.calibrate.unknown_target': 'the runs do not say which {key} they were measured on',
  'sim.calibrate.name_it': 'name it: {flag} {example} (a simulator catalogue name; see servelab plan --help)',
  'sim.calibrate.wrote':
    'wrote {path}: use it with --profile {file} (servelab plan, servelab sim) or profile: in a sim target',
  // src/sim/calibrate/fit.ts, vllm-result.ts: what the runs cannot determine, and why
  'sim.calibrate.lows': 'runs at concurrency 1 ({ids})',
  'sim.calibrate.lows_none': 'runs at concurrency 1 (none)',
  'sim.calibrate.undetermined.decode':
    'undetermined: no decode gaps at low load: {lows} have no request with 3 or more output tokens',
  'sim.calibrate.undetermined.decode_hint':
    'add a run at concurrency 1 with output_len ≥ 64 (`servelab exp init calibration` has one)',
  'sim.calibrate.undetermined.ctx':
    'undetermined: the decode context spans {spread} tokens at low load; the KV read needs ≥ {min}',
  'sim.calibrate.undetermined.ctx_hint':
    'decode at concurrency 1 from prompts of different lengths (e.g. 128 and 4096 tokens)',
  'sim.calibrate.undetermined.prefill':
    'undetermined: no prefill-length variation at low load: {n} distinct uncached prompt length(s){range} in {lows}',
  'sim.calibrate.undetermined.prefill_range': ' ({lo}–{hi} tokens)',
  'sim.calibrate.undetermined.prefill_hint':
    'sweep the prompt length at concurrency 1: ≥ {lengths} lengths spanning ≥ {ratio}×, the longest ≥ {longest} tokens (e.g. 128, 512, 2048, 4096)',
  'sim.calibrate.undetermined.saturated':
    'undetermined: no saturated level: the output rate still grew at every concurrency level ({levels})',
  'sim.calibrate.undetermined.one_in_flight':
    'undetermined: no saturated level: no run had more than one request in flight',
  'sim.calibrate.undetermined.saturated_hint':
    'add concurrency levels until the output rate stops growing (a concurrency sweep to saturation, as `servelab exp init calibration`)',
  'sim.calibrate.vllm.queueing':
    'an aggregate result at max_concurrency {conc} mixes queueing into its mean TTFT and TPOT',
  'sim.calibrate.vllm.queueing_unlimited':
    'an aggregate result at unlimited max_concurrency mixes queueing into its mean TTFT and TPOT',
  'sim.calibrate.vllm.queueing_hint':
    'give one measured with --max-concurrency 1, or the runs with per-request records (servelab run, requests.jsonl)',
  'sim.calibrate.vllm.incomplete':
    'the result has no completed requests or lacks mean_ttft_ms, mean_tpot_ms or the token totals',
  'sim.calibrate.vllm.incomplete_hint':
    'give the file `vllm bench serve --save-result` wrote for a finished run',
} as const;
