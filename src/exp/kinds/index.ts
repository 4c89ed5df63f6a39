/**
 * @module exp/kinds
 * The registry of experiment kinds: one module object per kind (`exp/kinds/kind`), each with its
 * file section and rules, defaults, template, runner and console output. The file format
 * (`exp/schema`), `exp init` (`exp/templates`) and `exp run` (`exp/run-experiment`) read every kind
 * from here, so adding a kind is a module in this folder and a line below.
 */
import { abKind } from './ab.js';
import { baselineKind } from './baseline.js';
import { calibrationKind } from './calibration.js';
import { matrixKind } from './matrix.js';
import { mixedInputKind } from './mixed-input.js';
import { prefixCacheKind } from './prefix-cache.js';
import { concurrencySweepKind, rateSweepKind } from './sweep.js';
import { teamAssistantKind } from './team-assistant.js';
import { voiceKind } from './voice.js';

/** The kind modules, in the order `exp init` and the docs list them. */
const MODULES = [
  baselineKind,
  prefixCacheKind,
  concurrencySweepKind,
  rateSweepKind,
  mixedInputKind,
  abKind,
  matrixKind,
  calibrationKind,
  teamAssistantKind,
  voiceKind,
] as const;

type Module = (typeof MODULES)[number];

/** Every experiment kind's module, by its `kind:`. */
export const KINDS = Object.fromEntries(MODULES.map((m) => [m.kind, m])) as {
  [M in Module as M['kind']]: M;
};

/** An experiment kind: the `kind:` of a file. */
export type ExperimentKind = keyof typeof KINDS;

/** The kinds, in order. */
export const EXPERIMENT_KINDS = MODULES.map((m) => m.kind) as readonly ExperimentKind[];

export type { ExperimentKindModule } from './kind.js';
