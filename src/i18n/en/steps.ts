/** Prose of the engine step timeline (keys `steps.*`): its chart, the stall's cause, the trace export. */
export const steps = {
  'steps.chart.title': 'Engine steps while {request} streamed — {run}',
  'steps.series.stepMs': 'step time (ms)',
  'steps.series.gapMs': 'gap before each token of {request} (ms)',
  'steps.series.prefill': 'prefill tokens in the step',
  'steps.axis.runMs': 'run time (ms)',
  'steps.axis.ms': 'ms',
  'steps.axis.tokens': 'tokens',
  'steps.mark.chunk': 'prefill of {other}: {tokens} tokens',
  'steps.mark.gap': 'gap {gap} ms',
  'steps.cause.chunk':
    'Request {request} waited {gap} ms for token {token}: step {step} took {dur} ms because it also prefilled {tokens} prompt tokens of {other}.',
  'steps.cause.preempted':
    'Request {request} waited {gap} ms for token {token}: {n} requests were preempted in those steps (their KV freed to make room).',
  'steps.cause.none':
    'Request {request} waited {gap} ms for token {token}; the {steps} steps in that gap prefilled nothing (the delay was outside the engine steps: queueing, the API server or the network).',
  'steps.h.timeline': 'Engine step timeline',
  'steps.no_steps': 'run {id} has no engine steps: it was not measured on a simulator that recorded them',
  'steps.no_steps_hint':
    'measure with servelab plan --record-steps, or against servelab sim --record-steps; then export again',
  'steps.no_request': 'no request {request} with two or more tokens in run {id}',
  'steps.no_request_hint':
    'give a request id from requests.jsonl (or its workload index), or leave --request out for the worst stall',
  'steps.wrote_trace': 'wrote {file} ({events} trace events; open it in https://ui.perfetto.dev)',
} as const;
