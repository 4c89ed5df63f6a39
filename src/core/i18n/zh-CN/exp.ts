import type { exp as en } from '../en/exp.js';

/** "exp" 部分的文字。 */
export const exp: Record<keyof typeof en, string> = {};
