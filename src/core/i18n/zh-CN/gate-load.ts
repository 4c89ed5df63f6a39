import type { gateLoad as en } from '../en/gate-load.js';

/** "gate-load" 部分的文字。 */
export const gateLoad: Record<keyof typeof en, string> = {};
