/**
 * @module test/gate/fake-engine
 * A tiny loopback "engine" for the gate's cancellation tests: a batch of `slots` requests
 * streams one token every 10 ms, the rest wait in a queue, and `/metrics` exposes vLLM v1's
 * running/waiting gauges, KV usage and token counters. Each flag breaks one thing the
 * simulator always gets right, so the check that watches it can be seen to fail:
 * - `ignoreDisconnect`: a request whose client left keeps its slot and generates to the end;
 * - `startCancelled`: a queued request whose client left leaves the waiting gauge but still
 *   starts (is prefilled) when a slot frees;
 * - `healthDelayMs`: /health answers this late while anything waits;
 * - `queueMax` + `overflowStatus`: beyond the queue, requests get this status (a 500 is a bug).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeEngineOptions {
  slots?: number;
  ignoreDisconnect?: boolean;
  startCancelled?: boolean;
  healthDelayMs?: number;
  queueMax?: number;
  overflowStatus?: number;
}

export interface FakeEngine {
  baseUrl: string;
  close(): Promise<void>;
}

/** Prompt tokens a request counts when it starts. */
const PROMPT_TOKENS = 10;

interface Job {
  res: ServerResponse;
  stream: boolean;
  maxTokens: number;
  gone: boolean;
  timer?: NodeJS.Timeout;
}

export async function startFakeEngine(opts: FakeEngineOptions = {}): Promise<FakeEngine> {
  const slots = opts.slots ?? 2;
  let running = 0;
  const queue: Job[] = [];
  let waiting = 0;
  let promptTokens = 0;
  let generated = 0;
  const jobs = new Set<Job>();

  const finish = (job: Job) => {
    if (job.timer) clearInterval(job.timer);
    job.timer = undefined;
    jobs.delete(job);
    running--;
    next();
  };
  const next = () => {
    while (running < slots && queue.length) {
      const job = queue.shift() as Job;
      if (job.gone && !opts.startCancelled) continue;
      if (!job.gone) waiting--;
      start(job);
    }
  };
  const start = (job: Job) => {
    jobs.add(job);
    running++;
    promptTokens += PROMPT_TOKENS;
    let n = 0;
    if (job.stream && !job.gone) {
      job.res.writeHead(200, { 'content-type': 'text/event-stream' });
      job.res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { role: 'assistant' } }] })}\n\n`);
    }
    job.timer = setInterval(() => {
      if (job.gone && !opts.ignoreDisconnect) return finish(job);
      n++;
      generated++;
      if (job.stream && !job.gone)
        job.res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: ' x' } }] })}\n\n`);
      if (n < job.maxTokens) return;
      if (!job.gone) {
        if (job.stream) job.res.end('data: [DONE]\n\n');
        else
          job.res.writeHead(200, { 'content-type': 'application/json' }).end(
            JSON.stringify({
              choices: [{ index: 0, message: { role: 'assistant', content: ' x'.repeat(n) } }],
            }),
          );
      }
      finish(job);
    }, 10);
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => {
      if (path === '/metrics') {
        const lines = [
          `vllm:num_requests_running{model_name="fake"} ${running}`,
          `vllm:num_requests_waiting{model_name="fake"} ${waiting}`,
          `vllm:kv_cache_usage_perc{model_name="fake"} ${running * 0.01}`,
          `vllm:prompt_tokens_total{model_name="fake"} ${promptTokens}`,
          `vllm:generation_tokens_total{model_name="fake"} ${generated}`,
        ];
        res.writeHead(200, { 'content-type': 'text/plain' }).end(`${lines.join('\n')}\n`);
        return;
      }
      if (path === '/health') {
        const delay = waiting > 0 ? (opts.healthDelayMs ?? 0) : 0;
        setTimeout(() => res.writeHead(200).end(), delay);
        return;
      }
      if (path !== '/v1/chat/completions') {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(raw || '{}') as { stream?: boolean; max_tokens?: number };
      const job: Job = { res, stream: body.stream === true, maxTokens: body.max_tokens ?? 16, gone: false };
      res.on('close', () => {
        if (res.writableFinished) return;
        job.gone = true;
        const i = queue.indexOf(job);
        if (i >= 0) {
          waiting--;
          if (!opts.startCancelled) queue.splice(i, 1);
        }
      });
      if (running < slots) return start(job);
      if (opts.queueMax !== undefined && waiting >= opts.queueMax) {
        res.writeHead(opts.overflowStatus ?? 429, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            error: { message: 'overloaded', type: 'server_error', code: opts.overflowStatus },
          }),
        );
        return;
      }
      waiting++;
      queue.push(job);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((r) => {
        // A job that ignores its client's disconnect would otherwise tick on after the test.
        for (const j of jobs) clearInterval(j.timer);
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
