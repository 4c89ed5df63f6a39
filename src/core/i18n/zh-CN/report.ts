import type { report as en } from '../en/report.js';

/** "report" 部分的文字。 */
export const report: Record<keyof typeof en, string> = {};
