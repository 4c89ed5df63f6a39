import type { cli as en } from '../en/cli.js';

/** "cli" 部分的文字。 */
export const cli: Record<keyof typeof en, string> = {};
