/** Prose of the "gate-load" section (keys `gate-load.*`): the gate's checks 4, 8 and 10 (docs/gate.md). */
export const gateLoad = {
  // Titles (one per check id).
  'gate-load.title.disconnect-mid-stream': 'Clients that disconnect mid-stream are freed on the server',
  'gate-load.title.queued-never-start': 'Queued requests cancelled before their first byte never start',
  'gate-load.title.client-timeout': 'A client timeout on a non-streaming request aborts it on the server',
  'gate-load.title.overload-health': 'At 2× saturation /health stays fast and the only errors are 429/503',
  'gate-load.title.warm-cold-parity': 'A cold and a warm greedy request give the same text',
  'gate-load.title.latency-goodput': 'Latency and goodput at 50% and 80% of the old maximum goodput',
  'gate-load.title.quality-questions': 'Fixed questions with known answers: the new version is not worse',

  // Skips.
  'gate-load.skip.no-metrics': '{url} does not answer with metrics servelab can read',
  'gate-load.skip.no-series': '{url} does not expose {names}',
  'gate-load.skip.gauge-flat':
    'the running gauge did not rise while {n} requests were in flight, so a release cannot be seen',
  'gate-load.skip.unobserved':
    'could not observe: {url} did not answer with the running and waiting gauges ({failed} scrape(s) failed or came back empty) while {n} requests were in flight',
  'gate-load.skip.not-saturated':
    'nothing waited with {n} streams in flight (running {running}): the batch is larger than the check fills',
  'gate-load.skip.finished-first':
    'the request ended (HTTP {status}) before the {ms} ms client timeout, so no abort could be seen',
  'gate-load.skip.no-correct':
    'the old version answered none of the {n} questions right, so the set says nothing about this model',
  'gate-load.skip.invalid':
    'inconclusive: the {side} run at {level} is not valid by servelab’s own verdict ({reasons})',
  'gate-load.skip.no-goodput':
    'inconclusive: the old version met the SLO (ttft ≤ {ttft} ms, tpot ≤ {tpot} ms) at no concurrency',

  // Failures of group 4.
  'gate-load.cancel.no-stream': 'the {n} streams did not all stream within {ms} ms (statuses: {codes})',
  'gate-load.cancel.not-settled':
    'after {what}, the gauges were not back at their baseline within {ms} ms (baseline {base}, last {now})',
  'gate-load.cancel.still-generating':
    'after {what}, the generation counter rose by {n} tokens in the next {ms} ms: the server kept generating',
  'gate-load.cancel.queue-kept':
    'the waiting gauge did not drop within {ms} ms after {n} queued requests were cancelled',
  'gate-load.cancel.queued-started':
    'the {n} cancelled queued requests started anyway: {tokens} prompt tokens were prefilled after they were cancelled',
  'gate-load.cancel.health-slow':
    '/health p99 was {p99} ms at {n} concurrent requests (limit {limit} ms; {bad} probes not 200)',
  'gate-load.cancel.overload-errors':
    'at {n} concurrent requests the server answered {statuses} (only 429 and 503 are allowed)',
  'gate-load.what.disconnect': '{n} clients disconnected mid-stream',
  'gate-load.what.saturation': 'cancelling the {n} saturating streams',
  'gate-load.what.timeout': 'a {ms} ms client timeout',

  // Evidence notes.
  'gate-load.evidence.still-busy':
    'the server still ran or queued requests {ms} ms after the previous check (other traffic?); the check goes on',
  'gate-load.evidence.baseline': 'baseline /metrics before the check',
  'gate-load.evidence.during': '/metrics with {n} requests in flight',
  'gate-load.evidence.after': '/metrics at the end of the {ms} ms window',
  'gate-load.evidence.queued': '/metrics with {running} streams running and {queued} without a first byte',
  'gate-load.evidence.after-queued': '/metrics after the {n} queued requests were cancelled',
  'gate-load.evidence.sent': 'the request sent',
  'gate-load.evidence.overload': 'what {n} concurrent clients saw over {ms} ms',
  'gate-load.evidence.overload-error': 'a request answered {status} under overload',

  // Group 8.
  'gate-load.cache.diverged':
    'the warm answer differs from the cold one at token {index} ({cold} vs {warm}), where the top two logprobs are {margin} apart (≥ {limit})',
  'gate-load.cache.diverged-no-logprobs':
    'the warm answer differs from the cold one at character {index}, and no logprobs came back to show a near tie',
  'gate-load.cache.failed': 'the {which} request failed: {error}',
  'gate-load.evidence.cold': 'the cold request and its answer',
  'gate-load.evidence.warm': 'the warm repeat and its answer',

  // Group 10.
  'gate-load.load.regressed': '{metrics} got worse by more than {limit}% (Holm-adjusted p < {alpha})',
  'gate-load.load.goodput-dropped': 'SLO attainment dropped at {levels}',
  'gate-load.load.quality-dropped':
    'the new version answered {new} of {n} questions right, the old {old}: the drop {delta} is outside the 95% CI [{low}, {high}]',
  'gate-load.load.quality-failed': 'the {side} version answered no question ({errors} errors)',
  'gate-load.evidence.max-goodput':
    'the old version’s maximum goodput: {rps} req/s at concurrency {c} (SLO ttft ≤ {ttft} ms, tpot ≤ {tpot} ms)',
  'gate-load.evidence.metric': '{metric}: old {old}, new {new} ({pct}%, 95% CI [{low}, {high}], Holm p {p})',
  'gate-load.evidence.wrong': 'question {id}: expected {answer}',
} as const;
