import type { run as en } from '../en/run.js';

/** "run" 部分的文字。 */
export const run: Record<keyof typeof en, string> = {};
