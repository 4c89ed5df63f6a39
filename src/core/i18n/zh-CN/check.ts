import type { check as en } from '../en/check.js';

/** "check" 部分的文字。 */
export const check: Record<keyof typeof en, string> = {};
