/**
 * @module record/writer
 * `requests.jsonl`: one JSON line per record, appended as each request ends. Each line is
 * written with a synchronous `write(2)` on an open descriptor, so it reaches the OS before the
 * next request is handled: a SIGINT, a crash or an OOM kill loses nothing already ended, and
 * nothing accumulates in memory. Records end at request rate, not chunk rate, so the syscall
 * per line is cheap next to the request itself.
 */
import { closeSync, fsyncSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { makeDirsSync } from '../core/output-path.js';
import { redactText } from '../core/redact.js';
import type { RequestRecord } from './types.js';

/**
 * Structurally a `RunObserver` (runner/events) with only `onRecord`; declared here rather than
 * imported because `record/` sits below `runner/` in the one-way layout.
 */
export interface RecordWriter<R = RequestRecord> {
  readonly path: string;
  /** Lines written so far. */
  readonly written: number;
  /**
   * The write that failed (a full disk, a read-only mount), if one did: the file then ends with
   * the last whole line before it and takes no more (the records are still in memory).
   */
  readonly error: Error | null;
  /** Append one record as a JSON line. */
  write(rec: R): void;
  /** The observer hook: same as `write`. */
  onRecord(rec: R): void;
  /** fsync and close; idempotent. Writing after close throws. */
  close(): Promise<void>;
}

/**
 * Open (create or truncate) a JSONL record file, creating its folder, and return a writer that
 * is also a run observer: pass it to `runLoad` and every record lands in the file.
 *
 * @example
 * const writer = openRecordWriter(join(outDir, 'requests.jsonl'));
 * try { await runLoad(cfg, { target, clock, observers: [writer] }); } finally { await writer.close(); }
 */
export function openRecordWriter<R = RequestRecord>(path: string): RecordWriter<R> {
  makeDirsSync(dirname(path));
  let fd: number | null = openSync(path, 'w');
  let written = 0;
  let bytes = 0;
  let error: Error | null = null;
  const write = (rec: R) => {
    if (fd === null) throw new Error(`record writer for ${path} is closed`);
    if (error) return;
    const line = Buffer.from(`${redactText(JSON.stringify(rec))}\n`);
    try {
      let off = 0;
      while (off < line.length) off += writeSync(fd, line, off);
      bytes += line.length;
      written++;
    } catch (e) {
      // Never half a line: cut the file back to its last whole record.
      error = e as Error;
      try {
        ftruncateSync(fd, bytes);
      } catch {}
    }
  };
  return {
    path,
    get written() {
      return written;
    },
    get error() {
      return error;
    },
    write,
    onRecord: write,
    async close() {
      if (fd === null) return;
      const f = fd;
      fd = null;
      try {
        fsyncSync(f);
      } finally {
        closeSync(f);
      }
    },
  };
}
