import type { sim as en } from '../en/sim.js';

/** "sim" 部分的文字。 */
export const sim: Record<keyof typeof en, string> = {};
