import type { writeup as en } from '../en/writeup.js';

/** "writeup" 部分的文字。 */
export const writeup: Record<keyof typeof en, string> = {};
