/**
 * @module test/store/helpers
 * Record factories and a CSV reader for the store tests.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { emptyRecord, type RequestRecord } from '../../src/record/types.js';

/** A finished, successful record with `n` content chunks starting at `t0` ms. */
export function makeRecord(i: number, t0 = i * 10, n = 4): RequestRecord {
  const r = emptyRecord({
    id: `r${i}`,
    planned_id: `r${i}`,
    attempt: 1,
    phase: i === 0 ? 'warmup' : 'measure',
    index: i,
  });
  const chunks = Array.from({ length: n }, (_, k) => t0 + 5 + k * 1.25);
  return {
    ...r,
    planned_at_ms: t0,
    sent_at_ms: t0 + 0.5,
    headers_at_ms: t0 + 1,
    first_chunk_at_ms: chunks[0],
    first_token_at_ms: chunks[0],
    first_reasoning_at_ms: null,
    first_content_at_ms: chunks[0],
    last_token_at_ms: chunks[n - 1],
    last_content_at_ms: chunks[n - 1],
    end_at_ms: chunks[n - 1] + 0.1,
    chunk_times_ms: chunks,
    chunk_kinds: chunks.map((_, k) => (k < 1 ? 'r' : 'c')),
    finish_reason: 'stop',
    outcome: 'ok',
    done: true,
    has_content: true,
    http_status: 200,
    usage: {
      prompt_tokens: 100 + i,
      completion_tokens: n,
      total_tokens: 100 + i + n,
      cached_tokens: i % 2 ? 16 : 0,
    },
    input_len: 100,
    output_len: 64,
  };
}

/** A failed record whose error text needs CSV quoting. */
export function makeErrorRecord(i: number): RequestRecord {
  return {
    ...emptyRecord({ id: `e${i}`, planned_id: `e${i}`, attempt: 2, phase: 'measure', index: i }),
    planned_at_ms: i,
    sent_at_ms: i + 0.25,
    end_at_ms: i + 3,
    outcome: 'http_error',
    http_status: 500,
    error: 'HTTP 500: {"error":{"message":"boom, "bad"\nthing"}}',
    timings: { prompt_n: 3, prompt_ms: 1.5 },
  };
}

/** A temporary directory removed by the returned cleanup. */
export function tempDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'servelab-store-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A Writable that keeps what is written. */
export function collector(): { out: Writable; text: () => string } {
  const parts: Buffer[] = [];
  const out = new Writable({
    highWaterMark: 1024,
    write(chunk: Buffer, _enc, cb) {
      parts.push(Buffer.from(chunk));
      setImmediate(cb);
    },
  });
  return { out, text: () => Buffer.concat(parts).toString('utf8') };
}

/** Minimal RFC 4180 reader (quoted cells may hold commas, quotes and newlines). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(cell);
      cell = '';
    } else if (ch === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += ch;
  }
  if (cell !== '' || row.length) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}
