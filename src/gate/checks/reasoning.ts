/** Gate checks, group "reasoning" (docs/gate.md). */
import type { Check } from '../types.js';

export const checks: Check[] = [];
