import type { dashboard as en } from '../en/dashboard.js';

/** "dashboard" 部分的文字。 */
export const dashboard: Record<keyof typeof en, string> = {};
