/**
 * @module cli/storage-errors
 * How the console says that a file or the store could not be written or read (core/errors
 * `StorageError`, exit code 4): what happened, the system's own words, and a hint.
 */
import type { StorageError } from '../core/errors.js';
import type { T } from '../i18n/index.js';

/** A {@link StorageError} as the console shows it: what happened, the system's words, a hint. */
export function formatStorageError(e: StorageError, t: T): string {
  const holder = e.holder ? t('cli.storage.holder', { holder: e.holder }) : '';
  return (
    `${t(`cli.storage.${e.failure}`, { path: e.path || '-', holder })}\n` +
    `${t('cli.storage.detail', { detail: e.detail })}\n` +
    `  ${t('cli.hint', { hint: t(`cli.storage.${e.failure}_hint`) })}\n`
  );
}
