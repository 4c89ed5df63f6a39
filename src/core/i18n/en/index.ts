/**
 * The English catalogue, which defines the keys. One section per stage, so work on different
 * stages never edits the same file; a key is `section.name`.
 */
import { common } from './common.js';

export const en = {
  ...common,
} as const;
