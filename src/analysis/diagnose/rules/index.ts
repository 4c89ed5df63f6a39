/**
 * @module analysis/diagnose/rules
 * Every diagnosis rule, one module each, in the order `diagnose` runs them: the per-run rules,
 * then the cross-run rules, then the residue. A rule is found only through this list.
 */
import { rule as batchGrowth } from './batch-growth.js';
import { rule as coldStart } from './cold-start.js';
import { rule as highTtft } from './high-ttft.js';
import { rule as multiGpuSlower } from './multi-gpu-slower.js';
import { rule as pauses } from './pauses.js';
import { rule as quantisedSlower } from './quantised-slower.js';
import type { Rule } from './rule.js';
import { rule as tail } from './tail.js';
import { rule as throughputPlateau } from './throughput-plateau.js';
import { rule as truncation } from './truncation.js';

export { precisionOf, tpOf } from './ab-pairs.js';
export { spearman } from './batch-growth.js';
export {
  NEEDS,
  type Need,
  type Opts,
  RULE_DEFAULTS,
  type Rule,
  type RuleContext,
  type RuleOptions,
  type RunRule,
  type RunsRule,
} from './rule.js';

export const ALL_RULES: readonly Rule[] = [
  coldStart,
  highTtft,
  pauses,
  batchGrowth,
  truncation,
  throughputPlateau,
  quantisedSlower,
  multiGpuSlower,
  tail,
];
