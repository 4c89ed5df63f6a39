/**
 * @module monitor/prom-parse
 * Parser for the Prometheus text exposition format (0.0.4, plus the OpenMetrics bits that
 * engines actually send: `# EOF`, `_created`, `info`/`stateset` types). Written here because
 * `parse-prometheus-text-format` was measured dropping every non-`le` histogram label and the
 * `_count`/`_sum` series (version 1.1.1, on a vLLM-style TTFT histogram), and those labels
 * (`model_name`, `engine`) are exactly what we need to sum across vLLM's data-parallel engines.
 *
 * The parser never throws on a bad line: a scrape of a half-broken exporter still yields every
 * good sample, and the bad lines come back in `errors` so the caller can count them.
 */

/** Metric types from `# TYPE` lines; `untyped` for samples with no TYPE. */
export type MetricType =
  | 'counter'
  | 'gauge'
  | 'histogram'
  | 'gaugehistogram'
  | 'summary'
  | 'info'
  | 'stateset'
  | 'unknown'
  | 'untyped';

const KNOWN_TYPES = new Set<MetricType>([
  'counter',
  'gauge',
  'histogram',
  'gaugehistogram',
  'summary',
  'info',
  'stateset',
  'unknown',
  'untyped',
]);

/** One sample line. */
export interface Sample {
  /** The series name as written (`vllm:time_to_first_token_seconds_bucket`). */
  name: string;
  /** Every label, `le`/`quantile` included, with escapes decoded. */
  labels: Record<string, string>;
  /** The value; NaN, +Infinity and -Infinity are kept as such. */
  value: number;
  /** The family the sample belongs to (`vllm:time_to_first_token_seconds`). */
  family: string;
  /** The family's type, `untyped` when no `# TYPE` line covers it. */
  type: MetricType;
  /** Optional exposition timestamp, Unix milliseconds. */
  timestamp_ms?: number;
}

/** A metric family: its TYPE/HELP metadata and samples, in input order. */
export interface Family {
  name: string;
  type: MetricType;
  help?: string;
  samples: Sample[];
}

/** A line the parser could not read (1-based line number). */
export interface ParseError {
  line: number;
  message: string;
}

export interface ParseResult {
  /** Every sample, in input order. */
  samples: Sample[];
  /** Families by name, in order of first appearance. */
  families: Map<string, Family>;
  errors: ParseError[];
}

/** Suffixes that attach a sample to a family of the given type (the Prometheus data model). */
const SUFFIXES: Partial<Record<MetricType, readonly string[]>> = {
  histogram: ['_bucket', '_count', '_sum', '_created'],
  gaugehistogram: ['_bucket', '_gcount', '_gsum'],
  summary: ['_count', '_sum', '_created'],
  counter: ['_total', '_created'],
  info: ['_info'],
};

/** `[a-zA-Z_:]` (metric names may contain colons; label names may not). */
function isNameStart(c: number, colon: boolean): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || (colon && c === 58);
}
function isNameChar(c: number, colon: boolean): boolean {
  return isNameStart(c, colon) || (c >= 48 && c <= 57);
}
const SPACE = 32;
const TAB = 9;
const QUOTE = 34;
const BACKSLASH = 92;

export interface ParseOptions {
  /**
   * Keep only samples whose series name is in this set (`_bucket` etc. included as written).
   * Other sample lines are skipped before their labels are read, which makes a scrape that only
   * needs a dozen gauges out of a large exposition several times cheaper. TYPE/HELP are kept.
   */
  only?: ReadonlySet<string>;
}

/**
 * Parse a text exposition.
 *
 * @example
 * const { samples } = parsePrometheusText('# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{engine="0"} 3\n');
 * // samples[0] = { name: 'vllm:num_requests_running', labels: { engine: '0' }, value: 3, family: ..., type: 'gauge' }
 */
export function parsePrometheusText(text: string, opts: ParseOptions = {}): ParseResult {
  const families = new Map<string, Family>();
  const samples: Sample[] = [];
  const errors: ParseError[] = [];
  const lines = text.split('\n');
  // Sample name → family, cleared whenever a TYPE line may change the answer.
  const resolved = new Map<string, Family>();

  const familyFor = (name: string): Family => {
    const hit = resolved.get(name);
    if (hit) return hit;
    let fam = families.get(name);
    if (!fam || fam.type === 'untyped') {
      for (const type of SUFFIX_TYPES) {
        for (const suf of SUFFIXES[type] ?? []) {
          if (!name.endsWith(suf)) continue;
          const base = families.get(name.slice(0, -suf.length));
          if (base && base.type === type) fam = base;
        }
      }
    }
    if (!fam) {
      fam = { name, type: 'untyped', samples: [] };
      families.set(name, fam);
    }
    resolved.set(name, fam);
    return fam;
  };

  const declare = (name: string): Family => {
    resolved.clear();
    let fam = families.get(name);
    if (!fam) {
      fam = { name, type: 'untyped', samples: [] };
      families.set(name, fam);
    }
    return fam;
  };

  for (let i = 0; i < lines.length; i++) {
    let line = lines[i];
    if (line.endsWith('\r')) line = line.slice(0, -1);
    const lineNo = i + 1;
    let pos = 0;
    while (line.charCodeAt(pos) === SPACE || line.charCodeAt(pos) === TAB) pos++;
    if (pos >= line.length) continue;
    if (line.charCodeAt(pos) === 35 /* # */) {
      const m = /^\s*#\s+(HELP|TYPE)\s+([^\s]+)(?:\s+(.*))?$/.exec(line);
      if (!m) continue; // plain comment or `# EOF`
      const [, kind, name, rest = ''] = m;
      const fam = declare(name);
      if (kind === 'HELP') fam.help = unescapeHelp(rest);
      else {
        const type = rest.trim().toLowerCase() as MetricType;
        if (!KNOWN_TYPES.has(type)) errors.push({ line: lineNo, message: `unknown type "${rest.trim()}"` });
        else fam.type = type;
      }
      continue;
    }
    try {
      const nameStart = pos;
      if (!isNameStart(line.charCodeAt(pos), true)) throw new Error('expected a metric name');
      pos++;
      while (isNameChar(line.charCodeAt(pos), true)) pos++;
      const name = line.slice(nameStart, pos);
      if (opts.only && !opts.only.has(name)) continue;
      const parsed = parseSampleRest(line, pos, name);
      const fam = familyFor(name);
      const sample: Sample = {
        name,
        labels: parsed.labels,
        value: parsed.value,
        family: fam.name,
        type: fam.type,
      };
      if (parsed.timestamp_ms !== undefined) sample.timestamp_ms = parsed.timestamp_ms;
      fam.samples.push(sample);
      samples.push(sample);
    } catch (err) {
      errors.push({ line: lineNo, message: (err as Error).message });
    }
  }
  return { samples, families, errors };
}

const SUFFIX_TYPES = Object.keys(SUFFIXES) as MetricType[];

/** Parse `{labels} value [timestamp]` after the metric name; throws an Error with a short message. */
function parseSampleRest(
  line: string,
  pos: number,
  name: string,
): { labels: Record<string, string>; value: number; timestamp_ms?: number } {
  const n = line.length;
  const labels: Record<string, string> = {};
  const skipWs = () => {
    while (line.charCodeAt(pos) === SPACE || line.charCodeAt(pos) === TAB) pos++;
  };
  let after = pos;
  while (line.charCodeAt(after) === SPACE || line.charCodeAt(after) === TAB) after++;
  if (line[after] === '{') {
    pos = after + 1;
    for (;;) {
      skipWs();
      if (line[pos] === '}') {
        pos++;
        break;
      }
      const ls = pos;
      if (!isNameStart(line.charCodeAt(pos), false)) throw new Error(`bad label name at column ${pos + 1}`);
      pos++;
      while (isNameChar(line.charCodeAt(pos), false)) pos++;
      const key = line.slice(ls, pos);
      skipWs();
      if (line[pos] !== '=') throw new Error(`expected "=" after label ${key}`);
      pos++;
      skipWs();
      if (line.charCodeAt(pos) !== QUOTE) throw new Error(`expected a quoted value for label ${key}`);
      pos++;
      let value = '';
      let chunk = pos;
      for (;;) {
        if (pos >= n) throw new Error(`unterminated value for label ${key}`);
        const c = line.charCodeAt(pos);
        if (c === QUOTE) {
          value += line.slice(chunk, pos);
          pos++;
          break;
        }
        if (c === BACKSLASH) {
          value += line.slice(chunk, pos);
          const e = line[pos + 1];
          // The format defines exactly three escapes; anything else is kept verbatim, as Prometheus does.
          if (e === 'n') value += '\n';
          else if (e === '\\') value += '\\';
          else if (e === '"') value += '"';
          else value += `\\${e ?? ''}`;
          pos += 2;
          chunk = pos;
          continue;
        }
        pos++;
      }
      if (Object.hasOwn(labels, key)) throw new Error(`duplicate label ${key}`);
      labels[key] = value;
      skipWs();
      if (line[pos] === ',') pos++;
      else if (line[pos] !== '}') throw new Error(`expected "," or "}" after label ${key}`);
    }
  } else if (pos < n && line.charCodeAt(pos) !== SPACE && line.charCodeAt(pos) !== TAB) {
    throw new Error(`bad character ${JSON.stringify(line[pos])} in metric name ${name}`);
  }

  const rest = line
    .slice(pos)
    .trim()
    .split(/[ \t]+/);
  // OpenMetrics exemplars follow a ` # `; we do not need them, so drop them.
  const hash = rest.indexOf('#');
  if (hash >= 0) rest.length = hash;
  if (rest.length === 0 || rest[0] === '') throw new Error(`missing value for ${name}`);
  if (rest.length > 2) throw new Error(`trailing garbage after value of ${name}`);
  const value = parseValue(rest[0]);
  if (value === undefined) throw new Error(`bad value "${rest[0]}" for ${name}`);
  if (rest.length === 1) return { labels, value };
  const ts = Number(rest[1]);
  if (!Number.isFinite(ts)) throw new Error(`bad timestamp "${rest[1]}" for ${name}`);
  // Text format 0.0.4 writes integer milliseconds; OpenMetrics writes float seconds.
  return { labels, value, timestamp_ms: rest[1].includes('.') ? ts * 1000 : ts };
}

/** Go's ParseFloat semantics, as Prometheus uses: NaN, ±Inf (any case), decimal and hex-free floats. */
function parseValue(s: string): number | undefined {
  const lower = s.toLowerCase();
  if (lower === 'nan') return Number.NaN;
  if (lower === '+inf' || lower === 'inf' || lower === '+infinity' || lower === 'infinity')
    return Number.POSITIVE_INFINITY;
  if (lower === '-inf' || lower === '-infinity') return Number.NEGATIVE_INFINITY;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) return undefined;
  return Number(s);
}

/** HELP text escapes only `\\` and `\n`. */
function unescapeHelp(s: string): string {
  return s.replace(/\\([\\n])/g, (_m, c: string) => (c === 'n' ? '\n' : '\\'));
}

/** Render a label set as `{a="1",b="2"}` (sorted, escaped): a stable key for a series. */
export function seriesKey(name: string, labels: Record<string, string>): string {
  const keys = Object.keys(labels).sort();
  if (keys.length === 0) return name;
  const body = keys
    .map((k) => `${k}="${labels[k].replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`)
    .join(',');
  return `${name}{${body}}`;
}
