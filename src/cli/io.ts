/**
 * @module cli/io
 * The process boundary in one place: streams, environment, signals and the working
 * directory are handed to commands through {@link Io}, so tests can run the real commands
 * in-process and assert on what they print and return.
 */
import process from 'node:process';
import { storageFailureOf } from '../core/errors.js';
import { redactText } from '../core/redact.js';

export interface OutStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
}

export interface Io {
  stdout: OutStream;
  stderr: OutStream;
  env: Record<string, string | undefined>;
  cwd: string;
  /**
   * Subscribe to SIGINT/SIGTERM for the duration of a command; returns an unsubscribe
   * function. Tests pass their own to simulate an interrupt.
   */
  onInterrupt(handler: (signal: string) => void): () => void;
}

/** Streams whose reader has gone (EPIPE): further writes are dropped. */
const closedStreams = new WeakSet<NodeJS.WriteStream>();
const guardedStreams = new WeakSet<NodeJS.WriteStream>();
/** The first storage failure of stdout or stderr (`runs export ID > file` on a full disk). */
let streamFailure: Error | null = null;

/** The storage failure a guarded stream met since the last call (then forgotten), if any. */
export function takeStreamFailure(): Error | null {
  const e = streamFailure;
  streamFailure = null;
  return e;
}

/**
 * `stream` as an {@link OutStream} that survives its reader going away. `servelab report … |
 * head -1` closes the pipe after one line: that is the reader's choice, so the EPIPE must
 * neither crash the process (an unhandled 'error' event) nor end it early, or files still to be
 * written and the store would be lost. After EPIPE, writes are dropped; the command runs to its
 * end and its exit code stands. Any other stream error is rethrown, as without the guard.
 */
function guarded(stream: NodeJS.WriteStream): OutStream {
  if (!guardedStreams.has(stream)) {
    guardedStreams.add(stream);
    stream.on('error', (err: NodeJS.ErrnoException) => {
      // A full disk or a read-only file behind `> file`: the command ends, then says so (cli/main).
      if (storageFailureOf(err)) streamFailure ??= err;
      else if (err.code !== 'EPIPE') throw err;
      closedStreams.add(stream);
    });
  }
  return {
    write: (chunk: string) => (closedStreams.has(stream) ? false : stream.write(chunk)),
    get isTTY() {
      return stream.isTTY === true;
    },
  };
}

/**
 * `io` with both streams passed through the one redaction (core/redact `redactText`): whatever a
 * command prints, a remembered key, a `Bearer` token or URL userinfo never reaches the console.
 */
export function redactingIo<I extends Io>(io: I): I {
  const wrap = (s: OutStream): OutStream => ({
    write: (chunk: string) => s.write(typeof chunk === 'string' ? redactText(chunk) : chunk),
    get isTTY() {
      return s.isTTY;
    },
  });
  return { ...io, stdout: wrap(io.stdout), stderr: wrap(io.stderr) };
}

/** The real process. */
export function processIo(): Io {
  return {
    stdout: guarded(process.stdout),
    stderr: guarded(process.stderr),
    env: process.env,
    cwd: process.cwd(),
    onInterrupt(handler) {
      const onSig = (sig: NodeJS.Signals) => handler(sig);
      process.on('SIGINT', onSig);
      process.on('SIGTERM', onSig);
      return () => {
        process.off('SIGINT', onSig);
        process.off('SIGTERM', onSig);
      };
    },
  };
}

/** An Io that captures output in memory (tests, programmatic use). */
export function memoryIo(env: Record<string, string | undefined> = {}, cwd = process.cwd()) {
  let out = '';
  let err = '';
  const handlers = new Set<(s: string) => void>();
  const io: Io & { out(): string; err(): string; interrupt(sig?: string): void } = {
    stdout: { write: (s: string) => (out += s), isTTY: false },
    stderr: { write: (s: string) => (err += s), isTTY: false },
    env,
    cwd,
    onInterrupt(h) {
      handlers.add(h);
      return () => handlers.delete(h);
    },
    out: () => out,
    err: () => err,
    interrupt: (sig = 'SIGINT') => {
      for (const h of handlers) h(sig);
    },
  };
  return io;
}
