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
  // src/exp/schema.ts: problems and hints of an experiment file
  'exp.schema.hint.kind': 'valid kinds: {kinds}; `servelab exp init KIND` prints a template',
  'exp.schema.hint.concurrency': 'a list of positive integers, e.g. [1, 2, 4, 8]',
  'exp.schema.hint.rates': 'a list of positive request rates per second, e.g. [0.5, 1, 2]',
  'exp.schema.hint.targets':
    'targets: {NAME: {url: http://HOST:PORT/v1}} or {NAME: {sim: {model: qwen3-0.6b, gpu: h100}}}',
  'exp.schema.hint.thresholds': "e.g. ['ttft_ms.p99<500', 'error_rate<0.01']",
  'exp.schema.hint.valid_fields': 'valid fields here: {fields}',
  'exp.schema.hint.remove': 'remove it',
  'exp.schema.hint.valid_values': 'valid values: {values}',
  'exp.schema.hint.unquote': 'write the number without quotes',
  'exp.schema.hint.template': '`servelab exp init KIND` prints a template that documents every field',
  'exp.schema.unknown_field': 'unknown field',
  'exp.schema.missing_field': 'missing required field',
  'exp.schema.other_section': 'section `{key}` is read by kind {readers}, not {kind}',
  'exp.schema.other_section_hint': 'remove it, or set kind: {kind}',
  'exp.schema.and': ' and ',
  'exp.schema.unknown_kind': 'unknown experiment kind {kind}',
  'exp.schema.yaml': 'YAML syntax: {error}',
  'exp.schema.yaml_at': 'YAML syntax: {error} (line {line}, column {col})',
  'exp.schema.yaml_hint': 'indent with spaces and quote values that contain `: ` or `#`',
  'exp.schema.empty': 'the file is empty',
  'exp.schema.empty_hint': '`servelab exp init KIND > FILE.yaml` writes a template',
  'exp.schema.not_map': 'expected a map of fields at the top level',
  'exp.schema.not_map_hint': 'start with `kind: …`',
  'exp.schema.at_line': '{message} (line {line})',
  'exp.schema.alias': '{label}: {path}: `{alias}` is an alias of `{key}`; write `{key}`',
  'exp.schema.alias_at': '{label}: {path}: `{alias}` is an alias of `{key}` (line {line}); write `{key}`',
  'exp.schema.no_file': 'no such file',
  'exp.schema.cannot_read': 'cannot read the file ({code})',
  'exp.schema.no_file_hint': '`servelab exp init KIND FILE.yaml` writes a template',
} as const;
