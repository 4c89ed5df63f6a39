/**
 * Prose of the "schedule" section (keys `schedule.*`): the open-loop schedules' problems
 * (`schedule/arrivals`: rate, arrival kind, burstiness, count or duration, seed, trace replay),
 * the load stages (`schedule/stages`) and a rate-sweep file's `load.stages`. Flag and key names
 * (`--rate`, `load.stages`) are passed in or stay as they are in both languages.
 */
export const schedule = {
  'schedule.rate.bad': 'rate must be a number > 0 requests/s, or inf (got {got})',
  'schedule.rate.bad_hint': 'e.g. --rate 10',
  'schedule.arrival.unknown': "unknown arrival '{got}'",
  'schedule.arrival.unknown_hint': 'use one of {kinds}',
  'schedule.burstiness.bad': 'burstiness must be a number > 0 (got {got})',
  'schedule.burstiness.bad_hint':
    'the gamma shape: 1 = Poisson, < 1 burstier, > 1 more regular (e.g. --burstiness 0.5)',
  'schedule.burstiness.not_gamma':
    'burstiness {got} applies only to --arrival gamma (got --arrival {arrival})',
  'schedule.burstiness.not_gamma_hint': 'add --arrival gamma, or drop --burstiness',
  'schedule.count_or_duration': 'an open-loop schedule needs exactly one of a request count and a duration',
  'schedule.count_or_duration_hint': 'give --requests N or --duration S',
  'schedule.requests.bad': 'must be an integer ≥ 1 (got {got})',
  'schedule.requests.bad_hint': 'e.g. --requests 100',
  'schedule.duration.bad': 'must be a number of seconds > 0 (got {got})',
  'schedule.duration.bad_hint': 'e.g. --duration 60',
  'schedule.seed.bad': 'seed must be an integer (got {got})',
  'schedule.seed.bad_hint': 'e.g. --seed 42',
  'schedule.positive.bad': 'must be a number > 0 (got {got})',
  'schedule.speedup.hint': '1 replays in real time, 2 twice as fast, 0.5 at half speed',
  'schedule.rate_scale.hint': '2 doubles the arrival rate, 0.5 halves it',
  'schedule.trace.no_timestamp': 'request {index} has no timestamp_ms',
  'schedule.trace.no_timestamp_hint': 'trace replay needs specs built from --trace',
  'schedule.stages.bad': "stage {n} ('{part}') is not RATExDURATION with at least one request",
  'schedule.stages.bad_hint': 'e.g. {example} (requests/s × seconds per stage)',
  'schedule.stages.kind':
    'load.stages is a rate-sweep of inference-perf stages; a {kind} experiment does not take it',
  'schedule.stages.kind_hint': 'use kind: rate-sweep, or remove load.stages',
  'schedule.stages.alone': 'load.stages sets its own rates and request counts: it cannot go with {keys}',
  'schedule.stages.alone_hint': 'keep load.stages (e.g. stages: "5x600,10x600") and remove the others',
  'schedule.stage_pause.needs': 'load.stage_pause_s applies between load stages only',
  'schedule.stage_pause.needs_hint': 'add load.stages (e.g. stages: "5x600,10x600"), or remove stage_pause_s',
} as const;
