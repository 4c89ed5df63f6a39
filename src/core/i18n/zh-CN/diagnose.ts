import type { diagnose as en } from '../en/diagnose.js';

/** "diagnose" 部分的文字。 */
export const diagnose: Record<keyof typeof en, string> = {};
