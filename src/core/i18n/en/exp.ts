/**
 * Prose of the "exp" section (keys `exp.*`): the framing of `servelab exp run`'s result
 * (src/exp/run.ts formatExperimentResult) and the exp commands' own lines. Each kind's table
 * and verdict lines (src/exp/kinds/*) are not in it yet.
 */
export const exp = {
  'exp.header': 'experiment {id}: {name} ({kind}), {n} runs',
  'exp.threshold_failed': 'threshold failed on {target} {label}: {threshold} (actual {actual})',
  'exp.threshold_failed_reason':
    'threshold failed on {target} {label}: {threshold} (actual {actual}, {reason})',
  'exp.time_scale':
    'note: {name} is a simulator at time scale {scale}: its ms and req/s are wall-clock (engine ms / {scale}); schedules (rates, spacing) are in simulated time',
  'exp.warning': 'warning: {message}',
  'exp.runs': 'runs: {list}',
  'exp.report_hint': 'experiment {id}: servelab report {id} --html report.html',
  'exp.interrupted': 'interrupted: finished runs are in the store',
  'exp.no_such': 'no such experiment',
  'exp.no_such.hint': 'see `servelab exp list`',
  'exp.no_text': 'the stored experiment has no file text to repeat',
  'exp.no_text.hint': 'run the original file again with `servelab exp run`',
} as const;
