/**
 * @module test/helpers/llama-server
 * The real llama.cpp `llama-server` for tests, from `../shared/llamacpp` beside the project root
 * (see its README: a CPU build with tiny random-weight models, started by `start.sh PORT MODEL
 * [flags]`). {@link llamaServerMissing} says why a test must skip without it, and throws under
 * `CI=true`, where it must be there. llama-server takes no port 0, so a free port is found by
 * binding one first.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Where the shared llama.cpp build lives, relative to the project root. */
export const LLAMACPP_DIR = resolve(ROOT, '..', 'shared', 'llamacpp');

/**
 * Null when llama-server is there; else the one-line reason to skip. Under `CI=true` a missing
 * server is an error, so the tests that need it cannot pass by skipping.
 */
export function llamaServerMissing(): string | null {
  if (existsSync(join(LLAMACPP_DIR, 'llama-server')) && existsSync(join(LLAMACPP_DIR, 'start.sh')))
    return null;
  const why = `no llama-server at ${LLAMACPP_DIR} (the shared llama.cpp build)`;
  if (process.env.CI === 'true') throw new Error(`${why}; CI must have it`);
  return why;
}

/** A port nothing listens on now (bound and released). */
async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => res(port));
    });
  });
}

export interface LlamaServer {
  /** `http://127.0.0.1:PORT`, no `/v1`. */
  root: string;
  /** Everything the server printed, for a failure message. */
  log(): string;
  close(): Promise<void>;
  /** Kill it with `signal` (`SIGKILL`: a crash mid-run); resolves when it has exited. */
  kill(signal: NodeJS.Signals): Promise<void>;
}

/**
 * Start llama-server with the `qwen2` model and extra flags (`-c 512 -np 1` …), and wait until
 * `/health` answers 200 (the model is loaded).
 */
export async function startLlamaServer(flags: readonly string[] = [], model = 'qwen2'): Promise<LlamaServer> {
  const port = await freePort();
  const child: ChildProcess = spawn(join(LLAMACPP_DIR, 'start.sh'), [String(port), model, ...flags], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout?.on('data', (b) => (log += b));
  child.stderr?.on('data', (b) => (log += b));
  const exited = new Promise<void>((res) => child.once('exit', () => res()));
  const root = `http://127.0.0.1:${port}`;
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`llama-server exited (${child.exitCode}):\n${log}`);
    const ok = await fetch(`${root}/health`)
      .then((r) => r.status === 200)
      .catch(() => false);
    const kill = async (signal: NodeJS.Signals) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    };
    if (ok) return { root, log: () => log, close, kill };
    await new Promise((r) => setTimeout(r, 100));
  }
  await close();
  throw new Error(`llama-server did not answer /health within 30 s:\n${log}`);
}

/** Settings only vLLM has: advice about llama.cpp (or SGLang) must never name them. */
export const VLLM_ONLY_KNOBS = [
  'max_num_seqs',
  'max_num_batched_tokens',
  'max_model_len',
  'gpu_memory_utilization',
  'kv_cache_dtype',
  '--enable-chunked-prefill',
  'enable_chunked_prefill',
] as const;
