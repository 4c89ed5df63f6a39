/**
 * @module bench/first-wave
 * `npm run bench -- first-wave`: does servelab's first wave of requests carry a client artefact?
 * A closed loop of `concurrency` users against the bench SSE server (a child process, warmed
 * before it says it is ready) set to a constant TTFT (`phase_ms` in the prompt) runs once as
 * `run` does (the runner gets the client ready before the window: `Target.preconnect` opens the
 * window's connections and warms the client's path, its code and undici's, on a loopback server
 * of its own) and once without that, each
 * in a fresh client process (bench/first-wave-client.ts: as cold as a fresh `servelab run`),
 * `rounds` times in turn. Each prints the first wave's TTFT p50 (the first `concurrency`
 * requests sent) over the rest's, the median over the rounds, each part's time from
 * `sent_at_ms` to undici's write of the request, and the connections opened inside the measured
 * window. Against a constant-latency server the ratio should be 1: more is time
 * the client spent inside the window on its own set-up. Target: within 5%.
 */
import { cpus } from 'node:os';
import {
  type Child,
  infoRow,
  MachineMeter,
  type Pcts,
  type Row,
  type ScenarioResult,
  startChild,
  targetRow,
} from './lib.js';

export interface FirstWaveOptions {
  concurrency: number;
  requests: number;
  /** The server's constant time to the first token, ms. */
  ttftMs: number;
  /** Runs of each case, in turn; the rows show the median. */
  rounds: number;
}

interface Once {
  first: Pcts;
  rest: Pcts;
  ratio: number | null;
  /** sent_at_ms → undici's write of the request, ms. */
  first_to_wire: Pcts;
  rest_to_wire: Pcts;
  records: number;
  ok: number;
  connections_in_window: number;
  prepared: { connections: number; warm_requests: number } | null;
}

/** One closed-loop run in a fresh client process. */
async function once(port: number, o: FirstWaveOptions, preconnect: boolean): Promise<Once> {
  const args = [port, preconnect ? 1 : 0, o.concurrency, o.requests, o.ttftMs].map(String);
  let child: Child | null = null;
  try {
    const started = await startChild<{ result: Once }>('./first-wave-client.ts', args, 'result');
    child = started.child;
    return started.ready.result;
  } finally {
    await child?.stop();
  }
}

/** Median of the non-null values (the upper one for an even count), or null. */
function median(vs: (number | null)[]): number | null {
  const s = vs.filter((v): v is number => v !== null).sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : null;
}

export async function benchFirstWave(o: FirstWaveOptions): Promise<ScenarioResult> {
  const { child, ready } = await startChild<{ port: number }>('./sse-server.ts', [], 'port');
  const cases = [
    { preconnect: true, name: `c=${o.concurrency} as run` },
    { preconnect: false, name: `c=${o.concurrency} no preconnect` },
  ];
  const runs = new Map<string, Once[]>(cases.map((c) => [c.name, []]));
  const busy: (number | null)[] = [];
  try {
    for (let k = 0; k < o.rounds; k++)
      for (const c of cases) {
        const m = new MachineMeter();
        (runs.get(c.name) as Once[]).push(await once(ready.port, o, c.preconnect));
        busy.push(m.busyCores(cpus().length));
      }
  } finally {
    await child.stop();
  }
  const rows: Row[] = [];
  const S = 'first-wave';
  for (const c of cases) {
    const rs = runs.get(c.name) as Once[];
    const base = {
      scenario: S,
      case: c.name,
      metric: `first wave TTFT p50 / rest p50 (median of ${o.rounds})`,
      value: median(rs.map((r) => r.ratio)),
      unit: '×',
    };
    rows.push(
      c.preconnect ? targetRow(base, { max: 1.05 }) : infoRow(base),
      infoRow({
        scenario: S,
        case: c.name,
        metric: 'first wave TTFT p50',
        value: median(rs.map((r) => r.first.p50)),
        unit: 'ms',
      }),
      infoRow({
        scenario: S,
        case: c.name,
        metric: 'rest TTFT p50',
        value: median(rs.map((r) => r.rest.p50)),
        unit: 'ms',
      }),
      infoRow({
        scenario: S,
        case: c.name,
        metric: 'first wave sent → written p50',
        value: median(rs.map((r) => r.first_to_wire.p50)),
        unit: 'ms',
      }),
      infoRow({
        scenario: S,
        case: c.name,
        metric: 'rest sent → written p50',
        value: median(rs.map((r) => r.rest_to_wire.p50)),
        unit: 'ms',
      }),
      infoRow({
        scenario: S,
        case: c.name,
        metric: 'connections opened in the window',
        value: median(rs.map((r) => r.connections_in_window)),
        unit: '',
      }),
    );
  }
  const asRun = runs.get(cases[0].name) as Once[];
  const prepared = asRun[0]?.prepared;
  const ratios = (name: string) =>
    (runs.get(name) as Once[]).map((r) => (r.ratio === null ? '–' : r.ratio.toFixed(2))).join(', ');
  return {
    name: S,
    rows,
    details: { options: o, runs: Object.fromEntries(runs), machine_busy_cores: busy },
    notes: [
      `server TTFT ${o.ttftMs} ms (constant); ${o.requests} requests, the first ${o.concurrency} are the first wave; each run in a fresh client process`,
      `excluded before the window (as run): ${prepared ? `${prepared.connections} connections opened (GET /v1/models), ${prepared.warm_requests} requests through the client to a loopback server of its own (none to this server)` : 'nothing reported'}; records ${asRun.map((r) => `${r.ok}/${r.records} ok`).join(', ')}`,
      ...cases.map((c) => `first-wave ${c.name}: ratio per round ${ratios(c.name)}`),
      `machine busy cores per run (ours included): ${busy.map((b) => (b === null ? '–' : b.toFixed(1))).join(', ')} of ${cpus().length}`,
    ],
  };
}
