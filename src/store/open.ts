/**
 * @module store/open
 * Opening a store file: a writer sets the connection up (WAL, `synchronous=NORMAL`, foreign keys)
 * and applies the missing migrations (`store/migrations`); a reader (the dashboard) opens
 * without write access and is refused a file that is not a store, or of another schema
 * version, with a hint. A file that cannot be opened at all is the user's mistake, not a bug.
 */
import { accessSync, constants, existsSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { asStorageError, StorageError, UsageError } from '../core/errors.js';
import { currentVersion, migrate, SCHEMA_VERSION } from './migrations.js';

/**
 * The connection to the store at `path`, ready for `Store`: migrated when writable, checked
 * when read-only. `nowUnixMs` stamps the migrations it applies.
 * @throws UsageError when the file cannot be opened or, read-only, is not a current store.
 */
export function openDatabase(
  path: string,
  opts: { readonly?: boolean; busyTimeoutMs?: number },
  nowUnixMs: () => number,
): Database.Database {
  let db: Database.Database;
  try {
    db = new Database(path, {
      readonly: opts.readonly ?? false,
      fileMustExist: opts.readonly ?? false,
    });
  } catch (e) {
    const known = openFailure(e, path);
    if (known !== e) throw known;
    throw new UsageError([
      {
        path,
        message: `cannot open the store: ${(e as Error).message}`,
        hint: 'check the --db path and its permissions',
      },
    ]);
  }
  try {
    prepareDatabase(db, path, opts, nowUnixMs);
  } catch (e) {
    // Never leave the file open behind an error (a read-only mount could not be unmounted).
    if (db.open) db.close();
    throw e;
  }
  return db;
}

/** The connection's pragmas, then migrated (a writer) or checked (a reader). */
function prepareDatabase(
  db: Database.Database,
  path: string,
  opts: { readonly?: boolean; busyTimeoutMs?: number },
  nowUnixMs: () => number,
): void {
  db.pragma(`busy_timeout = ${Math.max(0, Math.round(opts.busyTimeoutMs ?? 5000))}`);
  namePathOnErrors(db, path);
  if (!opts.readonly) {
    // WAL: readers never block the writer and see only committed transactions.
    // synchronous=NORMAL: in WAL mode a crash of the process (not the OS) loses nothing committed.
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    refuseForeign(db, path);
    migrate(db, path, nowUnixMs());
  } else {
    const v = currentVersion(db);
    if (v !== SCHEMA_VERSION) {
      db.close();
      throw new UsageError([
        {
          path,
          message:
            v === 0
              ? 'not a servelab store'
              : `store schema version ${v}, this servelab reads ${SCHEMA_VERSION}`,
          hint:
            v === 0
              ? 'check the --db path'
              : 'open it once with a matching servelab (read-write) to migrate it',
        },
      ]);
    }
  }
}

/**
 * Give every error of this connection's statements the store's path (`err.path`, as Node's file
 * errors have one), so a full disk or a damaged page met in the middle of a command is reported
 * with the file it is about (cli/main).
 */
function namePathOnErrors(db: Database.Database, path: string): void {
  const tag = (e: unknown) => {
    if (e && typeof e === 'object' && !('path' in e)) Object.assign(e, { path });
    return e;
  };
  const prepare = db.prepare.bind(db);
  db.prepare = ((sql: string) => {
    let st: Database.Statement;
    try {
      st = prepare(sql);
    } catch (e) {
      throw tag(e);
    }
    for (const m of ['run', 'get', 'all'] as const) {
      const f = st[m].bind(st) as (...a: unknown[]) => unknown;
      (st as unknown as Record<string, unknown>)[m] = (...a: unknown[]) => {
        try {
          return f(...a);
        } catch (e) {
          throw tag(e);
        }
      };
    }
    return st;
  }) as typeof db.prepare;
  for (const m of ['exec', 'pragma'] as const) {
    const f = db[m].bind(db) as (...a: unknown[]) => unknown;
    (db as unknown as Record<string, unknown>)[m] = (...a: unknown[]) => {
      try {
        return f(...a);
      } catch (e) {
        throw tag(e);
      }
    };
  }
}

/** The tables of a servelab store (store/migrations); a file with others belongs to another program. */
const OWN_TABLE = /^(?:schema_version|experiments|runs|requests|series|sqlite_\w+)$/;

/**
 * Refuse to add servelab's tables to another program's database (`run --db other-app.sqlite`),
 * as the readers (`runs list`) refuse to read it.
 */
function refuseForeign(db: Database.Database, path: string): void {
  if (currentVersion(db) !== 0) return;
  const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type='table'").all() as { name: string }[])
    .map((r) => r.name)
    .filter((n) => !OWN_TABLE.test(n));
  if (!tables.length) return;
  db.close();
  throw new UsageError([
    {
      path: '--db',
      message: `${path} is not a servelab store (an SQLite database of another program, with tables ${tables.slice(0, 3).join(', ')})`,
      hint: 'point --db at the servelab.db that run, plan or exp run wrote, or at a new file name to start one',
    },
  ]);
}

/** Who holds a store's lock, when the store says so: the runs still marked running (pid, host, id). */
function lockHolder(path: string): string | null {
  try {
    const db = new Database(path, { readonly: true, fileMustExist: true, timeout: 200 });
    try {
      const rows = db
        .prepare("SELECT id, pid, host FROM runs WHERE status = 'running' ORDER BY rowid DESC LIMIT 3")
        .all() as { id: string; pid: number | null; host: string | null }[];
      return rows.length
        ? rows.map((r) => `run ${r.id}, pid ${r.pid ?? '?'} on ${r.host ?? '?'}`).join('; ')
        : null;
    } finally {
      db.close();
    }
  } catch {
    return null;
  }
}

/** Whether the folder of `path` (or the file itself) cannot be written: a read-only mount or file. */
function notWritable(path: string): boolean {
  for (const p of [dirname(path), path])
    try {
      if (existsSync(p)) accessSync(p, constants.W_OK);
    } catch {
      return true;
    }
  return false;
}

/**
 * What opening the store at `path` failed with, as the user should read it: a file that is not
 * a store (or not a database) is a UsageError; a read-only mount, a lock held by another
 * process, a damaged file or a full disk is a StorageError (exit code 4), with who holds the lock
 * when the store knows; anything else (a bug) is returned as it is.
 */
export function openFailure(err: unknown, path: string): unknown {
  if (err instanceof UsageError || err instanceof StorageError) return err;
  const code = (err as { code?: unknown }).code;
  const detail = `${String(code)}: ${(err as Error).message}`;
  // SQLite opens a WAL store's -shm file read-write even to read: on a read-only mount a valid
  // store cannot be opened at all (sqlite.org/wal.html#readonly), which is not "not a store".
  if ((code === 'SQLITE_CANTOPEN' || String(code).startsWith('SQLITE_READONLY')) && notWritable(path))
    return new StorageError('readonly', path, detail);
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CANTOPEN')
    return new UsageError([
      {
        path: '--db',
        message: `${path} is not a servelab store (${code === 'SQLITE_CANTOPEN' ? 'it cannot be opened' : 'not an SQLite database'})`,
        hint: 'point --db at the servelab.db that run, plan or exp run wrote, or at a new file name to start one',
      },
    ]);
  const storage = asStorageError(err, path);
  if (storage?.failure === 'locked')
    return new StorageError('locked', path, storage.detail, lockHolder(path));
  return storage ?? err;
}
