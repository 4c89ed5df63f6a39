/**
 * @module store/open
 * Opening a store file: a writer sets the connection up (WAL, `synchronous=NORMAL`, foreign keys)
 * and applies the missing migrations (`store/migrations`); a reader (the dashboard) opens
 * without write access and is refused a file that is not a store, or of another schema
 * version, with a hint. A file that cannot be opened at all is the user's mistake, not a bug.
 */
import Database from 'better-sqlite3';
import { UsageError } from '../core/errors.js';
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
    throw new UsageError([
      {
        path,
        message: `cannot open the store: ${(e as Error).message}`,
        hint: 'check the --db path and its permissions',
      },
    ]);
  }
  db.pragma(`busy_timeout = ${Math.max(0, Math.round(opts.busyTimeoutMs ?? 5000))}`);
  if (!opts.readonly) {
    // WAL: readers never block the writer and see only committed transactions.
    // synchronous=NORMAL: in WAL mode a crash of the process (not the OS) loses nothing committed.
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
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
  return db;
}
