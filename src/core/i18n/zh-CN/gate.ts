import type { gate as en } from '../en/gate.js';

/** "gate" 部分的文字。 */
export const gate: Record<keyof typeof en, string> = {};
