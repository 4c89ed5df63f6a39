/**
 * @module core/errors
 * Exit codes and user-facing errors. A user error prints its problems with hints and never
 * a stack trace; anything else is a bug and prints the stack.
 */

/** Exit codes shared by every servelab command. When several apply: 130 > 1 > 4 > 3 > 2. */
export const ExitCode = {
  ok: 0,
  usage: 1,
  thresholdFailed: 2,
  nothingSucceeded: 3,
  /** The results could not be saved or read: a full or read-only disk, a locked or broken store. */
  storage: 4,
  interrupted: 130,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** Pick the exit code that wins when several conditions hold (130 > 1 > 4 > 3 > 2 > 0). */
export function worstExitCode(codes: readonly number[]): number {
  const order = [
    ExitCode.interrupted,
    ExitCode.usage,
    ExitCode.storage,
    ExitCode.nothingSucceeded,
    ExitCode.thresholdFailed,
  ];
  for (const c of order) if (codes.includes(c)) return c;
  return ExitCode.ok;
}

/** One problem found while validating input: where, what, and what to do about it. */
export interface Problem {
  /** Where the problem is: a flag (`--rate`), a file path with a field path (`s.yaml: load.levels[2]`). */
  path?: string;
  message: string;
  hint?: string;
}

/** Invalid usage: every problem at once, each with a hint. Exit code 1. */
export class UsageError extends Error {
  readonly code = 'SERVELAB_USAGE';
  readonly problems: Problem[];

  constructor(problems: Problem[] | string, hint?: string) {
    const list = typeof problems === 'string' ? [{ message: problems, hint }] : problems;
    super(list.map((p) => formatProblem(p)).join('\n'));
    this.name = 'UsageError';
    this.problems = list;
  }
}

/** The target could not be reached or nothing succeeded. Exit code 3. */
export class TargetError extends Error {
  readonly code = 'SERVELAB_TARGET';
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'TargetError';
  }
}

export function formatProblem(p: Problem, hint: (h: string) => string = (h) => `hint: ${h}`): string {
  const head = p.path ? `${p.path}: ${p.message}` : p.message;
  return p.hint ? `${head}\n    ${hint(p.hint)}` : head;
}

/**
 * What went wrong with a file or the store, as a person would say it: the disk is full, the file
 * system or the file is read-only, permission is denied, another process holds the store's lock,
 * the store is damaged, or another I/O error.
 */
export type StorageFailure = 'full' | 'readonly' | 'denied' | 'locked' | 'corrupt' | 'io';

/**
 * The failure an error from the file system (`ENOSPC`, `EROFS`, `EACCES`, …) or from SQLite
 * (better-sqlite3's `SqliteError.code`: `SQLITE_FULL`, `SQLITE_READONLY_*`, `SQLITE_BUSY`, …;
 * sqlite.org/rescode.html) stands for, or null for any other error (a bug keeps its stack).
 */
export function storageFailureOf(err: unknown): StorageFailure | null {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return null;
  if (code === 'ENOSPC' || code === 'EDQUOT' || code === 'EFBIG' || code === 'SQLITE_FULL') return 'full';
  if (code === 'EROFS' || code.startsWith('SQLITE_READONLY')) return 'readonly';
  if (code === 'EACCES' || code === 'EPERM' || code === 'SQLITE_PERM' || code === 'SQLITE_AUTH')
    return 'denied';
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return 'locked';
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') return 'corrupt';
  if (code === 'EIO' || code.startsWith('SQLITE_IOERR') || code === 'SQLITE_CANTOPEN') return 'io';
  return null;
}

/**
 * A file or the store could not be written or read for a reason outside servelab (see
 * {@link StorageFailure}). Exit code 4, one message with a hint (cli/main), never a stack.
 */
export class StorageError extends Error {
  readonly code = 'SERVELAB_STORAGE';
  constructor(
    readonly failure: StorageFailure,
    /** The file (the store, report.json, …). */
    readonly path: string,
    /** The system's own words (`SQLITE_FULL: database or disk is full`). */
    readonly detail: string,
    /** Who holds a lock, when known (`pid 1234 on host-a, run ab12cd`). */
    readonly holder: string | null = null,
  ) {
    super(`${path}: ${failure}: ${detail}`);
    this.name = 'StorageError';
  }
}

/** `err` as a {@link StorageError} about `path` when it is a storage failure, else null. */
export function asStorageError(err: unknown, path: string): StorageError | null {
  if (err instanceof StorageError) return err;
  const failure = storageFailureOf(err);
  if (!failure) return null;
  const e = err as { code?: string; message?: string };
  const detail = `${e.code}: ${(e.message ?? '').replace(/^E[A-Z]+: /, '')}`;
  return new StorageError(failure, path, detail);
}
