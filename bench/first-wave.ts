/**
 * @module bench/first-wave
 * `npm run bench -- first-wave`: does servelab's first wave of requests carry a client artefact?
 * A closed loop of `concurrency` users against the bench SSE server (a child process) set to a
 * constant TTFT (`phase_ms` in the prompt) runs once as `run` does (the runner opens the
 * window's connections before it: `Target.preconnect`) and once without that; each prints the
 * first wave's TTFT p50 (the first `concurrency` requests sent) over the rest's. Against a
 * constant-latency server both should be 1: a higher ratio is time the client spent inside the
 * measured window on its own set-up (a TCP connect and the server's accept per request, first
 * use of the streaming path). Target: within 5%.
 */
import { requestMetrics } from '../src/analysis/request.js';
import { createHttpTarget } from '../src/client/http.js';
import type { Target } from '../src/client/types.js';
import { runLoad } from '../src/runner/loops.js';
import { RealClock } from '../src/runtime/clock.js';
import { infoRow, pcts, type Row, type ScenarioResult, startChild, targetRow } from './lib.js';

export interface FirstWaveOptions {
  concurrency: number;
  requests: number;
  /** The server's constant time to the first token, ms. */
  ttftMs: number;
}

/** TTFT p50 of the first wave and of the rest, ms, from one closed-loop run. */
async function once(port: number, o: FirstWaveOptions, preconnect: boolean) {
  const clock = new RealClock();
  const http = createHttpTarget({
    baseUrl: `http://127.0.0.1:${port}/v1`,
    endpoint: 'chat',
    model: 'bench',
    stream: true,
    clock,
  });
  // Without preconnect: the same target, hiding the method from the runner.
  const target: Target = preconnect ? http : { send: (a) => http.send(a), close: () => http.close() };
  const prompt = `phase_ms=${o.ttftMs} interval_ms=5`;
  try {
    const res = await runLoad(
      {
        load: { kind: 'closed', concurrency: o.concurrency, requests: o.requests },
        specs: [{ index: 0, prompt, input_len: null, output_len: 4 }],
      },
      { target, clock },
    );
    const sent = res.records
      .filter((r) => r.phase === 'measure' && r.sent_at_ms !== null)
      .sort((a, b) => (a.sent_at_ms as number) - (b.sent_at_ms as number));
    const ttft = (rs: typeof sent) =>
      rs.map((r) => requestMetrics(r).ttft_ms).filter((v): v is number => v !== undefined);
    const first = pcts(ttft(sent.slice(0, o.concurrency)));
    const rest = pcts(ttft(sent.slice(o.concurrency)));
    return { first, rest, ratio: first.p50 !== null && rest.p50 ? first.p50 / rest.p50 : null };
  } finally {
    await http.close();
  }
}

export async function benchFirstWave(o: FirstWaveOptions): Promise<ScenarioResult> {
  const { child, ready } = await startChild<{ port: number }>('./sse-server.ts', [], 'port');
  try {
    const rows: Row[] = [];
    const details: Record<string, unknown> = { options: o };
    for (const preconnect of [true, false]) {
      const r = await once(ready.port, o, preconnect);
      const c = `c=${o.concurrency} ${preconnect ? 'as run' : 'no preconnect'}`;
      details[preconnect ? 'as_run' : 'no_preconnect'] = r;
      const base = {
        scenario: 'first-wave',
        case: c,
        metric: 'first wave TTFT p50 / rest p50',
        value: r.ratio,
        unit: '×',
      };
      rows.push(preconnect ? targetRow(base, { max: 1.05 }) : infoRow(base));
      rows.push(
        infoRow({
          scenario: 'first-wave',
          case: c,
          metric: 'first wave TTFT p50',
          value: r.first.p50,
          unit: 'ms',
        }),
        infoRow({ scenario: 'first-wave', case: c, metric: 'rest TTFT p50', value: r.rest.p50, unit: 'ms' }),
      );
    }
    return {
      name: 'first-wave',
      rows,
      details,
      notes: [
        `server TTFT ${o.ttftMs} ms (constant); ${o.requests} requests, the first ${o.concurrency} are the first wave`,
      ],
    };
  } finally {
    await child.stop();
  }
}
