/**
 * @module exp/schema
 * The experiment file format (YAML): one zod schema per kind, joined on `kind` into a
 * discriminated union from the kind registry (`exp/kinds/`: each kind's section and its
 * cross-field rules live with the kind; the shared fields in `exp/fields`), and
 * {@link loadExperimentFile}, which turns a file into a validated {@link ExperimentFile} or a
 * {@link UsageError} listing *every* problem at once, each with its path in the file
 * (`s.yaml: load.concurrency[2]: expected a positive integer (line 14)`) and a hint.
 *
 * Every field is documented in the templates (`exp/templates`) and in docs/experiments.md.
 * Units are in the names: `*_ms` milliseconds, `*_s` seconds, `*_tokens`/`*_len` tokens, rates
 * in requests per second.
 */
import { readFileSync } from 'node:fs';
import { isMap, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';
import { type Problem, UsageError } from '../core/errors.js';
import { type T, translator } from '../i18n/index.js';
import { SIM_SETTINGS, type SimSettingKey, simAliasesIn, simSettingHint } from '../sim/settings.js';
import { LENGTH_FORMS_HINT } from '../workload/index.js';
import { isObj, SHARED_FIELDS, type SharedFile, sharedRules, withRules } from './fields.js';
import { EXPERIMENT_KINDS, type ExperimentKind, KINDS } from './kinds/index.js';

/** One grammar for lengths: workload's, re-exported because `exp/index` has always offered it. */
export { type LengthDist, parseLengthDist } from '../workload/index.js';
export {
  type Declared,
  declaredSchema,
  type Generation,
  generationSchema,
  type Load,
  loadSchema,
  type SimOptions,
  simSchema,
  sloSchema,
  type TargetSpec,
  targetSchema,
  type WorkloadSection,
  workloadSchema,
} from './fields.js';
export { EXPERIMENT_KINDS, type ExperimentKind } from './kinds/index.js';

type Modules = typeof KINDS;
type SectionOf<K extends ExperimentKind> = Modules[K]['section'];

/** The section each kind reads (its key in the file). */
export const KIND_SECTIONS = Object.fromEntries(EXPERIMENT_KINDS.map((k) => [k, KINDS[k].section])) as {
  [K in ExperimentKind]: SectionOf<K>;
};

const MODULE_LIST = EXPERIMENT_KINDS.map((k) => KINDS[k]);

/** The file format: one schema per kind (the shared fields and its section, with the rules), on `kind`. */
export const experimentSchema = z.discriminatedUnion(
  'kind',
  MODULE_LIST.map((m) => m.schema) as unknown as [
    Modules[ExperimentKind]['schema'],
    ...Modules[ExperimentKind]['schema'][],
  ],
);

/**
 * What a file with an unknown kind is checked against, so that its other problems are reported
 * with the kind's: the shared fields and rules, any kind's section accepted unread.
 */
const anyKindSchema = withRules(
  z.strictObject({
    kind: z.unknown().optional(),
    ...SHARED_FIELDS,
    ...Object.fromEntries(MODULE_LIST.map((m) => [m.section, z.unknown().optional()])),
  }),
  sharedRules,
);

type FileOf<K extends ExperimentKind> = z.output<Modules[K]['file']>;
type SectionValue<K extends ExperimentKind> = NonNullable<FileOf<K>[SectionOf<K> & keyof FileOf<K>]>;

/**
 * A validated experiment file (defaults filled in): the shared fields, its kind, and its kind's
 * section (any kind's section may be read; a file holds only its own).
 */
export type ExperimentFile = SharedFile & { kind: ExperimentKind } & {
  [K in ExperimentKind as SectionOf<K>]?: SectionValue<K>;
};

interface PathProblem {
  path: (string | number)[];
  message: string;
  hint?: string;
}

// ---- turning issues into problems -----------------------------------------------------------

/** `load.concurrency[2]`, `targets["my target"].url`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let s = '';
  for (const k of path) {
    if (typeof k === 'number') s += `[${k}]`;
    else if (typeof k === 'string' && /^[A-Za-z_][A-Za-z0-9_-]*$/.test(k)) s += s ? `.${k}` : k;
    else s += `[${JSON.stringify(String(k))}]`;
  }
  return s || '(top level)';
}

interface Def {
  type: string;
  shape?: Record<string, { _zod: { def: Def } }>;
  innerType?: { _zod: { def: Def } };
  in?: { _zod: { def: Def } };
  out?: { _zod: { def: Def } };
  valueType?: { _zod: { def: Def } };
  element?: { _zod: { def: Def } };
  options?: { _zod: { def: Def } }[];
}

/** The keys an object schema accepts at `path`, for "unknown field" hints. */
function keysAt(path: readonly PropertyKey[], kind: unknown): string[] {
  const unwrap = (d: Def | undefined): Def | undefined => {
    for (let i = 0; d && i < 10; i++) {
      if (d.innerType) d = d.innerType._zod.def;
      else if (d.type === 'pipe')
        d = d.out?._zod.def.type === 'transform' ? d.in?._zod.def : (d.out?._zod.def ?? d.in?._zod.def);
      else if (d.type === 'union') d = d.options?.map((o) => o._zod.def).find((o) => o.type === 'object');
      else break;
    }
    return d;
  };
  const top =
    typeof kind === 'string' && Object.hasOwn(KINDS, kind)
      ? KINDS[kind as ExperimentKind].schema
      : anyKindSchema;
  let d = unwrap((top as unknown as { _zod: { def: Def } })._zod.def);
  for (const k of path) {
    if (!d) return [];
    if (d.type === 'object') d = unwrap(d.shape?.[String(k)]?._zod.def);
    else if (d.type === 'record') d = unwrap(d.valueType?._zod.def);
    else if (d.type === 'array') d = unwrap(d.element?._zod.def);
    else return [];
  }
  return d?.type === 'object' && d.shape ? Object.keys(d.shape) : [];
}

/** English, for callers that have no command translator. */
const EN = translator('en');

/** The hint of a field, by its name (the last name on a problem's path). */
function fieldHint(field: string, t: T): string | undefined {
  switch (field) {
    case 'kind':
      return t('exp.schema.hint.kind', { kinds: EXPERIMENT_KINDS.join(', ') });
    case 'concurrency':
      return t('exp.schema.hint.concurrency');
    case 'rates':
      return t('exp.schema.hint.rates');
    case 'input_len':
    case 'output_len':
      return LENGTH_FORMS_HINT;
    case 'targets':
      return t('exp.schema.hint.targets');
    case 'thresholds':
      return t('exp.schema.hint.thresholds');
    default:
      return undefined;
  }
}

function hintFor(issue: z.core.$ZodIssue, raw: unknown, t: T): string {
  const p = (issue as { params?: { hint?: string } }).params;
  if (p?.hint) return p.hint;
  if (issue.code === 'unrecognized_keys') {
    const keys = keysAt(issue.path, isObj(raw) ? raw.kind : undefined);
    return keys.length
      ? t('exp.schema.hint.valid_fields', { fields: keys.join(', ') })
      : t('exp.schema.hint.remove');
  }
  if (issue.path.length === 1 && issue.path[0] === 'kind') return fieldHint('kind', t) as string;
  // A simulator setting: what it takes and its default, from the settings schema.
  const [top, , s, key] = issue.path;
  if (top === 'targets' && s === 'sim' && typeof key === 'string' && Object.hasOwn(SIM_SETTINGS, key))
    return simSettingHint(key as SimSettingKey);
  if (issue.code === 'invalid_value')
    return t('exp.schema.hint.valid_values', { values: issue.values.map(String).join(', ') });
  const last = [...issue.path].reverse().find((k) => typeof k === 'string');
  const named = typeof last === 'string' ? fieldHint(last, t) : undefined;
  if (named) return named;
  if (
    issue.code === 'invalid_type' &&
    typeof valueAt(raw, issue.path) === 'string' &&
    issue.expected === 'number'
  )
    return t('exp.schema.hint.unquote');
  return t('exp.schema.hint.template');
}

function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
  let v = raw;
  for (const k of path) {
    if (Array.isArray(v) && typeof k === 'number') v = v[k];
    else if (isObj(v)) v = v[String(k)];
    else return undefined;
  }
  return v;
}

function hasPath(raw: unknown, path: readonly PropertyKey[]): boolean {
  let v = raw;
  for (const k of path) {
    if (Array.isArray(v) && typeof k === 'number' && k < v.length) v = v[k];
    else if (isObj(v) && Object.hasOwn(v, String(k))) v = v[String(k)];
    else return false;
  }
  return true;
}

function issueProblems(issue: z.core.$ZodIssue, raw: unknown, t: T): PathProblem[] {
  const path = issue.path.map((k) => (typeof k === 'symbol' ? String(k) : k));
  if (issue.code === 'unrecognized_keys')
    return issue.keys.map(
      (k) =>
        otherKindSection(path, k, raw, t) ?? {
          path: [...path, k],
          message: t('exp.schema.unknown_field'),
          hint: hintFor(issue, raw, t),
        },
    );
  if (issue.code === 'invalid_type' && !hasPath(raw, issue.path))
    return [{ path, message: t('exp.schema.missing_field'), hint: hintFor(issue, raw, t) }];
  let message = issue.message;
  if (message.startsWith('Invalid input: expected')) message = message.slice('Invalid input: '.length);
  return [{ path, message, hint: hintFor(issue, raw, t) }];
}

/**
 * A section of another kind at the top level: a sign of a wrong `kind` or a copy-paste slip,
 * said as such (the kinds that read it, and the `kind` that would).
 */
function otherKindSection(path: (string | number)[], key: string, raw: unknown, t: T): PathProblem | null {
  if (path.length) return null;
  const readers = MODULE_LIST.filter((m) => m.section === key).map((m) => m.kind);
  if (!readers.length) return null;
  const kind = isObj(raw) ? String(raw.kind) : '';
  return {
    path: [key],
    message: t('exp.schema.other_section', { key, readers: readers.join(t('exp.schema.and')), kind }),
    hint: t('exp.schema.other_section_hint', { kind: readers[0] }),
  };
}

/** The file's `kind` problem, when it has no registered kind. */
function kindProblem(raw: Record<string, unknown>, t: T): PathProblem | null {
  if (typeof raw.kind === 'string' && Object.hasOwn(KINDS, raw.kind)) return null;
  const hint = fieldHint('kind', t);
  return raw.kind === undefined
    ? { path: ['kind'], message: t('exp.schema.missing_field'), hint }
    : {
        path: ['kind'],
        message: t('exp.schema.unknown_kind', { kind: JSON.stringify(raw.kind) }),
        hint,
      };
}

// ---- entry points ---------------------------------------------------------------------------

/**
 * Validate experiment YAML text. `label` names the file in problems (e.g. `s.yaml`).
 * @throws UsageError listing every problem found, each `label: field.path` with a line and a hint.
 */
export function parseExperiment(
  text: string,
  label = 'experiment.yaml',
  warn: (message: string) => void = () => {},
  t: T = EN,
): ExperimentFile {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const problems: Problem[] = [];
  for (const e of doc.errors) {
    const pos = e.linePos?.[0] ?? (e.pos ? lines.linePos(e.pos[0]) : undefined);
    const error = e.message.split('\n')[0];
    problems.push({
      path: label,
      message: pos
        ? t('exp.schema.yaml_at', { error, line: pos.line, col: pos.col })
        : t('exp.schema.yaml', { error }),
      hint: t('exp.schema.yaml_hint'),
    });
  }
  if (problems.length) throw new UsageError(problems);
  let raw: unknown;
  try {
    // yaml's toJS refuses a document whose aliases expand too far (its maxAliasCount, 100 by
    // default): an alias bomb is a bad file, not a bug.
    raw = doc.toJS();
  } catch (e) {
    if (!(e instanceof ReferenceError)) throw e;
    throw new UsageError([
      {
        path: label,
        message: t('exp.schema.aliases', { error: e.message }),
        hint: t('exp.schema.aliases_hint'),
      },
    ]);
  }
  if (raw === null || raw === undefined)
    throw new UsageError([
      {
        path: label,
        message: t('exp.schema.empty'),
        hint: t('exp.schema.empty_hint'),
      },
    ]);
  if (!isObj(raw))
    throw new UsageError([
      { path: label, message: t('exp.schema.not_map'), hint: t('exp.schema.not_map_hint') },
    ]);

  const lineOf = (path: readonly (string | number)[]): number | undefined => {
    // The deepest node on the path that exists (a missing field points at its parent).
    for (let n = path.length; n >= 0; n--) {
      const node = doc.getIn(path.slice(0, n), true) as unknown;
      const range = isScalar(node) || isMap(node) || isSeq(node) ? node.range : undefined;
      if (range) return lines.linePos(range[0]).line;
      if (n > 0 && isMap(doc.getIn(path.slice(0, n - 1), true))) {
        const parent = doc.getIn(path.slice(0, n - 1), true);
        if (isMap(parent)) {
          const pair = parent.items.find(
            (it) => isScalar(it.key) && String(it.key.value) === String(path[n - 1]),
          );
          const kr = pair && isScalar(pair.key) ? pair.key.range : undefined;
          if (kr) return lines.linePos(kr[0]).line;
        }
      }
    }
    return undefined;
  };

  // Aliases are read as their settings' keys, with a note to write the key.
  for (const [name, target] of Object.entries(isObj(raw.targets) ? raw.targets : {}))
    for (const [alias, key] of simAliasesIn(isObj(target) ? target.sim : undefined)) {
      const line = lineOf(['targets', name, 'sim', alias]);
      const path = formatPath(['targets', name, 'sim', alias]);
      warn(
        line
          ? t('exp.schema.alias_at', { label, path, alias, key, line })
          : t('exp.schema.alias', { label, path, alias, key }),
      );
    }

  const found: PathProblem[] = [];
  const badKind = kindProblem(raw, t);
  if (badKind) found.push(badKind);
  const res = badKind ? anyKindSchema.safeParse(raw) : experimentSchema.safeParse(raw);
  if (!res.success) for (const issue of res.error.issues) found.push(...issueProblems(issue, raw, t));

  if (found.length) {
    const seen = new Set<string>();
    for (const p of found) {
      const key = `${formatPath(p.path)}|${p.message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const line = lineOf(p.path);
      problems.push({
        path: `${label}: ${formatPath(p.path)}`,
        message: line ? t('exp.schema.at_line', { message: p.message, line }) : p.message,
        hint: p.hint,
      });
    }
    throw new UsageError(problems);
  }
  if (!res.success || badKind) throw new Error('unreachable: zod failed without issues');
  return applyKindDefaults(res.data as ExperimentFile);
}

/**
 * Fill in what a kind implies when the file leaves it out, so executors read one place: the
 * kind's own section (with its defaults) and load levels (each kind's `defaults`).
 */
export function applyKindDefaults(spec: ExperimentFile): ExperimentFile {
  return (KINDS[spec.kind].defaults as (f: ExperimentFile) => ExperimentFile)(spec);
}

/**
 * Read and validate an experiment file.
 * @throws UsageError when the file cannot be read or is invalid (every problem at once).
 */
export function loadExperimentFile(
  path: string,
  warn?: (message: string) => void,
  t: T = EN,
): ExperimentFile {
  return readExperimentFile(path, warn, t).spec;
}

/** Like {@link loadExperimentFile}, also returning the text as read (stored with the experiment). */
export function readExperimentFile(
  path: string,
  warn?: (message: string) => void,
  t: T = EN,
): { path: string; text: string; spec: ExperimentFile } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError([
      {
        path,
        message:
          code === 'ENOENT'
            ? t('exp.schema.no_file')
            : t('exp.schema.cannot_read', { code: code ?? (e as Error).message }),
        hint: t('exp.schema.no_file_hint'),
      },
    ]);
  }
  return { path, text, spec: parseExperiment(text, path, warn, t) };
}

/** The target names of a validated experiment, in file order. */
export function targetNames(spec: ExperimentFile): string[] {
  return Object.keys(spec.targets);
}

/**
 * The file's text with its seed written: as it was when it writes one, else with `seed: N` (the
 * one drawn when it was read) added at the end, so the stored file repeats the experiment
 * (`exp rerun`) and shows the seed its runs were measured with.
 */
export function withSeedWritten(text: string, seed: number): string {
  const doc = parseDocument(text);
  if (isMap(doc.contents) && doc.contents.has('seed')) return text;
  return `${text}${text === '' || text.endsWith('\n') ? '' : '\n'}seed: ${seed}\n`;
}
