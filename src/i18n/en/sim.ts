/**
 * Prose of the "sim" section (keys `sim.*`): what `servelab sim` and `plan` say about the
 * simulator, and the rules between its flags (src/sim/settings.ts crossRules).
 */
export const sim = {
  'sim.fidelity.low':
    'simulator fidelity (low load): median |error| {median}%, max {max}% over {rows} public measurements (docs/fidelity.md)',
  'sim.fidelity.saturation':
    'simulator fidelity (saturation): median |error| {median}%, max {max}% over {rows} public measurements (docs/fidelity.md)',
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
} as const;
