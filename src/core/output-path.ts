/**
 * @module core/output-path
 * Paths the user names for output (`--out DIR`, `--json FILE`, `--html FILE`, …). Each is
 * checked before any work, so a typo fails in milliseconds instead of after a run; and a write
 * that still fails (a full disk, a permission) becomes a problem with a hint, not a stack.
 * Missing folders are not a problem: the writers create them.
 */
import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Problem } from './errors.js';

const HINT = 'give a path in a folder you can write to (missing folders are created)';

function kindOf(path: string): 'dir' | 'file' | null {
  try {
    return statSync(path).isDirectory() ? 'dir' : 'file';
  } catch {
    return null;
  }
}

/**
 * Why `path` cannot be written as a file (`kind` 'file') or created as a folder ('dir'), or null
 * when it can: the path is a folder where a file is wanted (or the reverse), a file stands where
 * a folder on the way would be created, or the nearest existing folder is not writable.
 * @param flag the flag that named the path, for the message (`--json`)
 * @example outputPathProblem('/tmp', '--json') // { path: '--json', message: '/tmp is a directory', … }
 */
export function outputPathProblem(path: string, flag: string, kind: 'file' | 'dir' = 'file'): Problem | null {
  const found = kindOf(path);
  if (found === 'dir' && kind === 'file')
    return { path: flag, message: `${path} is a directory`, hint: 'give a file path, not a directory' };
  if (found === 'file' && kind === 'dir')
    return { path: flag, message: `${path} is a file, not a directory`, hint: 'give a directory path' };
  // What must be writable: the path when it exists, else the nearest folder above it that does.
  let existing = path;
  if (!found)
    for (let child = path, parent = dirname(path); ; child = parent, parent = dirname(parent)) {
      const k = kindOf(parent);
      if (k === 'file')
        return { path: flag, message: `cannot create ${child}: ${parent} is a file`, hint: HINT };
      existing = parent;
      if (k === 'dir' || dirname(parent) === parent) break;
    }
  try {
    accessSync(existing, constants.W_OK);
  } catch {
    return { path: flag, message: `cannot write ${path} (permission denied)`, hint: HINT };
  }
  return null;
}

/**
 * A failed write of `path` as a problem, or null when `err` is not a file-system error (a bug,
 * which should keep its stack).
 */
export function writeErrorProblem(err: unknown, path: string, flag: string): Problem | null {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (typeof code !== 'string' || !/^E[A-Z]+$/.test(code)) return null;
  const why: Record<string, string> = {
    ENOSPC: 'no space left on the device',
    EDQUOT: 'disk quota exceeded',
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    EROFS: 'read-only file system',
    EISDIR: 'it is a directory',
    ENOTDIR: 'a part of the path is a file',
    EEXIST: 'a file stands where a folder would be created',
    ENOENT: 'no such folder',
  };
  return { path: flag, message: `cannot write ${path}: ${why[code] ?? code}`, hint: HINT };
}

/** The folders to create for `path`, outermost first: it and each missing one above it. */
function missingDirs(path: string): string[] {
  const missing: string[] = [];
  for (let p = resolve(path); kindOf(p) === null; ) {
    missing.push(p);
    const up = dirname(p);
    if (up === p) break;
    p = up;
  }
  return missing.reverse();
}

/** A level's mkdir error, unless the folder is there now (another writer made it). */
function mkdirFailed(err: unknown): boolean {
  return (err as NodeJS.ErrnoException).code !== 'EEXIST';
}

/**
 * Create folder `path` and every missing folder above it, one level at a time; the first level
 * that fails throws its error. Node's `mkdir(path, { recursive: true })` spins forever where a
 * folder exists but cannot hold folders (under /proc: ENOENT for the child, EEXIST for the
 * parent, again and again; `merge --out /proc/x/y` hung, issue 28, as in
 * https://github.com/oven-sh/bun/pull/40600 for bun's walk); this walk goes down once.
 */
export async function makeDirs(path: string): Promise<void> {
  for (const d of missingDirs(path))
    await mkdir(d).catch((err: unknown) => {
      if (mkdirFailed(err)) throw err;
    });
}

/** {@link makeDirs}, synchronously. */
export function makeDirsSync(path: string): void {
  for (const d of missingDirs(path))
    try {
      mkdirSync(d);
    } catch (err) {
      if (mkdirFailed(err)) throw err;
    }
}
