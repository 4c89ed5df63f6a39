/**
 * The Chinese (zh-CN) catalogue: every key of the English one, in the same sections. A key
 * missing here is a compile error.
 */
import type { en } from '../en/index.js';
import { common } from './common.js';

export const zhCN: Record<keyof typeof en, string> = {
  ...common,
};
