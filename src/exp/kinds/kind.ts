/**
 * @module exp/kinds/kind
 * What an experiment kind is: one module object holding its file format (its section, with its
 * cross-field rules), its defaults, its `exp init` template, its runner and its console output.
 * {@link defineKind} builds one; `exp/kinds/index` registers them. Adding a kind is adding a
 * module here and a line in the registry.
 *
 * A kind's runner gets a {@link KindContext} of its own file ({@link OwnFile}): its section with
 * its defaults filled in, and no other kind's section to read by mistake.
 */
import type { z } from 'zod';
import type { T } from '../../i18n/index.js';
import type { ExperimentAnswer } from '../../report/answer.js';
import type { ExperimentRecord } from '../experiment-record.js';
import { kindFile, type RuleReport, type SharedFile, sharedRules, withRules } from '../fields.js';
import type { TemplateParts } from '../template-parts.js';
import type { KindContext, LiveTarget } from './context.js';

/** The parsed file of one kind: the shared fields, `kind` and its (optional) section. */
export type KindFile<K extends string, N extends string, S extends z.ZodType> = z.output<
  ReturnType<typeof kindFile<K, N, S>>
>;

/**
 * A kind's file once its defaults are applied: the shared fields, `kind` and its own section,
 * filled in. What its runner reads; no other kind's section is in it.
 */
export type OwnFile<K extends string, N extends string, S extends z.ZodType> = SharedFile & {
  kind: K;
} & { [P in N]: z.output<S> };

/** What a kind module declares. */
export interface KindSpec<
  K extends string,
  N extends string,
  S extends z.ZodType,
  R extends { kind: string },
> {
  /** The `kind:` of a file. */
  kind: K;
  /** The key of its section in the file (two kinds may read the same section). */
  section: N;
  /** The section's fields and their defaults. */
  sectionSchema: S;
  /** Whether a file of this kind may give `load.stages` (inference-perf's load stages, one run). */
  loadStages?: boolean;
  /** Rules between fields that the field types cannot express (see `withRules`). */
  rules?: (file: KindFile<K, N, S>, report: RuleReport) => void;
  /** What the kind implies when the file leaves it out (its section's defaults, load levels). */
  defaults: (file: KindFile<K, N, S>) => OwnFile<K, N, S>;
  /** The commented, runnable `exp init` template. */
  template: (parts: TemplateParts) => string;
  /** Run the experiment (targets started) and compute the kind's result, on its own file. */
  run: (ctx: KindContext<OwnFile<K, N, S>>) => Promise<R>;
  /** The result as console lines (tables, verdicts), in `t`'s language. */
  format: (result: R, t: T) => string[];
  /**
   * The kind's section of the Markdown write-up (`servelab report EXP --md`), as Markdown lines in
   * `t`'s language: what the experiment asked and answered, in the course's terms.
   */
  writeup?: (result: R, t: T) => string[];
  /**
   * What the experiment answers (question, one-sentence verdict, key table, lead chart, runs),
   * built from its result alone, in `t`'s language. Every surface (console, HTML, Markdown,
   * `report --json`, the dashboard) shows it first. See `report/answer`.
   */
  answer?: (result: R, t: T) => ExperimentAnswer;
  /** The kind's answer in a few plain sentences (no markup), for the head of the HTML report. */
  conclusion?: (result: R, t: T) => string[];
  /** Target records with what the kind measured beyond its runs, to store with the experiment (or null). */
  targetRecords?: (
    targets: readonly LiveTarget[],
    result: R,
  ) => Record<string, ExperimentRecord | null> | null;
}

/** A kind module: its declaration, and its file format without and with the cross-field rules. */
export type ExperimentKindModule<
  K extends string = string,
  N extends string = string,
  S extends z.ZodType = z.ZodType,
  R extends { kind: string } = { kind: string },
> = KindSpec<K, N, S, R> & {
  /** The kind's file without cross-field rules (for building what the rules refuse on purpose). */
  file: ReturnType<typeof kindFile<K, N, S>>;
  /** The kind's file format: the shared rules and the kind's own. */
  schema: ReturnType<typeof kindFile<K, N, S>>;
};

/** Build a kind module from its declaration. */
export function defineKind<
  K extends string,
  N extends string,
  S extends z.ZodType,
  R extends { kind: string },
>(spec: KindSpec<K, N, S, R>): ExperimentKindModule<K, N, S, R> {
  const file = kindFile(spec.kind, spec.section, spec.sectionSchema);
  const schema = withRules(
    file,
    (f, report) => sharedRules(f, report, { loadStages: spec.loadStages === true }),
    spec.rules ?? (() => {}),
  );
  return { ...spec, file, schema };
}
