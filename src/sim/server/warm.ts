/**
 * @module sim/server/warm
 * The serving path warmed before a wall-clock simulator says it is ready (issue 26 item 6).
 *
 * The first request a Node process serves runs every function on its path for the first time:
 * V8 parses, interprets and compiles the body reader and JSON parse, the request validation, the
 * chat template and tokenizer, the engine's step and scheduler, the driver's timers and the SSE
 * writer, and node:http builds its first chunked response. Measured on the 2-core benchmark box
 * (`npm run bench -- cold-reset`, probes on the server at SCHED_RR priority, docs/bench.md
 * section 11), that first pass took 10–15 wall ms more than the next one before the engine saw
 * the request and 1–3 ms more after its first token was due. The part before the engine hides behind the modelled
 * front end and prefill (`RealTimeDriver.add` backdates the arrival) only while it fits in them;
 * the part after the planned release is served as latency. The wall clock's waker thread
 * (`runtime/clock`), which wakes each step at its planned end, also starts at the first sleep:
 * its boot (tens of ms of another thread) fell inside the first request. A later cold request (one after
 * `POST /reset_prefix_cache`) pays neither, so the simulator's own warm-up would show as a slower
 * first request: the leak issue 26 item 6 forbids.
 *
 * vLLM warms up too before it serves (`vllm/v1/worker/gpu_model_runner.py`, `profile_run` and
 * `capture_model`: dummy batches and CUDA graph capture), and none of it shows in its metrics.
 * Here the warm-up is a throwaway simulator built from the same options (its own engine, metrics,
 * id stream and tokenizer memo, so the real server's state, counters and seeded ids are those of
 * a server that served nothing), listening on a loopback port of its own at a high time scale:
 * one streamed chat request and one plain completion go through it over real HTTP, then it is
 * closed. Only code is shared, which is the point: V8's compiled functions and feedback. So it
 * runs once per process for each engine profile and tokenizer (a second server in the same
 * process finds the code warm already, as do the many servers of a test file). Best effort: a
 * warm-up that fails (no loopback port, a request refused) leaves the start as it was.
 */
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startFineWaker } from '../../runtime/clock.js';
import { modelFamily } from '../../tokenizer/index.js';
import { type SimServerOptions, simSettingDefault } from '../settings.js';
import { warmText } from './prompt-tokens.js';

/** Engine ms per wall ms of the throwaway simulator: its few steps take well under 1 ms of wall time. */
export const WARM_TIME_SCALE = 1000;

/** Words of the warm-up prompt (~3,000 tokens; `prompt-tokens` `warmText`): a prefill of some length. */
const WARM_PROMPT_WORDS = 600;

/** Engine profiles and tokenizers (`vllm-v1 qwen3`) whose serving path this process has warmed. */
const warmed = new Set<string>();

/** What the warm-up needs of a simulator (`createSimHandler`'s): its handler and its closing. */
export interface WarmTarget {
  sim: {
    handle(req: IncomingMessage, res: ServerResponse): void;
    abortAll(): void;
    shutdown(server: Server): Promise<void>;
  };
}

/** One POST over loopback, its body read to the end; resolves its status. */
function exchange(port: number, path: string, payload: unknown): Promise<number> {
  const body = JSON.stringify(payload);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * The throwaway simulator's options: the real one's model, engine and output options, at
 * {@link WARM_TIME_SCALE} on a loopback port of its own, with nothing that refuses the warm-up
 * or reaches outside it (API key, waiting limit, faults, span export).
 */
function warmOptions(opts: SimServerOptions): SimServerOptions {
  return {
    ...opts,
    timeScale: WARM_TIME_SCALE,
    host: '127.0.0.1',
    port: 0,
    apiKey: undefined,
    maxWaiting: undefined,
    otlpEndpoint: undefined,
    faultRate: 0,
    faults: undefined,
    faultProfile: undefined,
  };
}

/**
 * Serve two requests through a throwaway simulator that `make` builds from `opts` (see
 * {@link warmOptions}; on a wall clock), then close it; once per process for each engine profile
 * and tokenizer. Never throws.
 * @returns whether this call served both requests (200); false when the process had warmed this
 *   path already or the warm-up failed
 */
export async function warmServePath(
  opts: SimServerOptions,
  make: (opts: SimServerOptions) => Promise<WarmTarget>,
): Promise<boolean> {
  const key = `${opts.engine ?? simSettingDefault('engine')} ${modelFamily(opts.model) ?? 'approximate'}`;
  if (warmed.has(key)) return false;
  warmed.add(key);
  let target: WarmTarget | undefined;
  let server: Server | undefined;
  try {
    // The clock's waker thread starts at the first sleep that is not already due; at the
    // throwaway's time scale steps rarely sleep, so the first real request would boot it.
    await startFineWaker();
    target = await make(warmOptions(opts));
    const { sim } = target;
    const srv = createServer((req, res) => sim.handle(req, res));
    server = srv;
    await new Promise<void>((resolve, reject) => {
      srv.once('error', reject);
      srv.listen({ port: 0, host: '127.0.0.1' }, () => resolve());
    });
    const port = (srv.address() as AddressInfo).port;
    const prompt = warmText(WARM_PROMPT_WORDS);
    const chat = await exchange(port, '/v1/chat/completions', {
      messages: [{ role: 'user', content: prompt }],
      max_tokens: 4,
      stream: true,
      stream_options: { include_usage: true },
    });
    const plain = await exchange(port, '/v1/completions', { prompt, max_tokens: 4 });
    return chat === 200 && plain === 200;
  } catch {
    // Best effort: the real server starts as it would have without the warm-up.
    return false;
  } finally {
    if (target && server) await target.sim.shutdown(server).catch(() => undefined);
    else target?.sim.abortAll();
  }
}
