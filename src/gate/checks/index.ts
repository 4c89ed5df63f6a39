/**
 * Every gate check, in docs/gate.md's order: one module per group.
 */
import type { Check } from '../types.js';
import { checks as cache } from './cache.js';
import { checks as cancel } from './cancel.js';
import { checks as context } from './context-length.js';
import { checks as errors } from './errors.js';
import { checks as load } from './load.js';
import { checks as metrics } from './metrics.js';
import { checks as reasoning } from './reasoning.js';
import { checks as stream } from './stream.js';
import { checks as structured } from './structured.js';
import { checks as tools } from './tools.js';

export const ALL_CHECKS: readonly Check[] = [
  ...stream,
  ...errors,
  ...context,
  ...cancel,
  ...structured,
  ...tools,
  ...reasoning,
  ...cache,
  ...metrics,
  ...load,
];
