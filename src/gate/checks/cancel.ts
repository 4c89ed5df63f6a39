/**
 * Gate checks, group "cancel" (docs/gate.md, group 4): cancellation and overload.
 *
 * Each is observed on the target's `/metrics` (running and waiting gauges, KV usage, the prompt
 * and generation token counters, read through `monitor/maps`), so a server without `/metrics`
 * skips them with the reason. A disconnect the server does not notice keeps generating for a
 * client that is gone: the batch slot, its KV blocks and the GPU time are lost until the
 * request ends by itself (vllm-project/vllm#57082 is the abort that looked like a success).
 */

import { request } from 'undici';
import { percentile } from '../../analysis/stats.js';
import { propsContext } from '../../core/models.js';
import type { T } from '../../i18n/index.js';
import {
  freshPrompt,
  healthUrl,
  type MetricsProbe,
  type MetricsReading,
  metricsProbe,
  type OpenRequest,
  openChat,
  pause,
  waitFor,
  wallClock,
} from '../load/target-io.js';
import type { Check, CheckContext, EachCheck, Evidence, GateTarget, SideResult } from '../types.js';
import { trimEvidence } from '../types.js';
import { propsOf } from './shared.js';

/** How soon the gauges must be back at their baseline after the clients left, ms (issue 13). */
export const SETTLE_MS = 2000;
/** How long the generation counter is watched after the gauges settled, ms. */
const STOPPED_MS = 300;
/** Streams disconnected mid-stream (4.1). */
const STREAMS = 4;
/** Most concurrent streams sent to find saturation (4.2, 4.4); a larger batch is skipped. */
export const SATURATION_CAP = 64;
/** How long 4.4 holds 2× saturation, ms. */
const OVERLOAD_MS = 1500;
/** /health p99 must stay under this at 2× saturation, ms. */
export const HEALTH_P99_MS = 1000;

type Vals = MetricsReading['values'];

/** A long generation: ignore_eos so it cannot end by itself while the check watches it. */
const longBody = (prompt: string, stream: boolean, maxTokens = 2048) => ({
  messages: [{ role: 'user', content: prompt }],
  stream,
  max_tokens: maxTokens,
  ignore_eos: true,
  temperature: 0.7,
});

const show = (v: Vals | undefined) =>
  JSON.stringify({
    running: v?.running ?? null,
    waiting: v?.waiting ?? null,
    kv_usage: v?.kv_usage ?? null,
    prompt_tokens_total: v?.prompt_tokens_total ?? null,
    generation_tokens_total: v?.generation_tokens_total ?? null,
  });

const skipped = (reason: string, evidence: Evidence[] = []): SideResult => ({
  status: 'skipped',
  reason,
  evidence,
});

/**
 * The check's start: the target's `/metrics`, its baseline reading (the first evidence), or why
 * the check cannot run (no /metrics, or no series it needs).
 */
/** How long {@link begin} waits for a quiet server, and the gap between its readings. */
const QUIET_MS = 5000;
const QUIET_GAP_MS = 150;
/** How long {@link begin} waits for the previous check's requests to end on the server, ms. */
export const IDLE_MS = 30_000;

async function begin(
  target: GateTarget,
  t: T,
  need: readonly (keyof Vals)[],
): Promise<{ skip: SideResult } | { probe: MetricsProbe; base: Vals; evidence: Evidence[] }> {
  const probe = metricsProbe(target);
  let reading = await probe.read();
  if (!reading) return { skip: skipped(t('gate-load.skip.no-metrics', { url: probe.url })) };
  // The previous check's requests must have ended on the server too, not only on the client: a
  // non-streamed request whose client timed out (4.3) keeps its slot on llama.cpp until its
  // answer is done, and a check that starts then measures a batch one slot short. Wait until
  // nothing runs or waits, at most IDLE_MS (other traffic may never stop: the check then goes on,
  // saying so in its evidence).
  const idleClock = wallClock();
  const busy: Evidence[] = [];
  const idleMs = await waitFor(
    idleClock,
    async () => {
      const r = await probe.read();
      if (r) reading = r;
      return !!r && (r.values.running ?? 0) <= 0 && (r.values.waiting ?? 0) <= 0;
    },
    IDLE_MS,
    QUIET_GAP_MS,
  );
  if (idleMs === null)
    busy.push({ note: t('gate-load.evidence.still-busy', { ms: IDLE_MS }), received: show(reading.values) });
  // The baseline is a quiet server: an earlier check's requests may still be draining (a
  // 64-stream check just before), and a baseline taken then hides this check's own rise. Wait
  // until two readings QUIET_GAP_MS apart agree on the gauges and the token counter, at most
  // QUIET_MS; a server that never settles (other traffic) keeps the last reading.
  const clock = wallClock();
  const t0 = clock.now();
  while (clock.now() - t0 < QUIET_MS) {
    await pause(clock, QUIET_GAP_MS);
    const next = await probe.read();
    if (!next) break;
    const same = (['running', 'waiting', 'generation_tokens_total'] as const).every(
      (k) => next.values[k] === reading?.values[k],
    );
    reading = next;
    if (same) break;
  }
  const base = reading.values;
  const evidence: Evidence[] = [...busy, { note: t('gate-load.evidence.baseline'), received: show(base) }];
  const missing = need.filter((k) => base[k] === undefined);
  if (missing.length)
    return {
      skip: skipped(t('gate-load.skip.no-series', { url: probe.url, names: missing.join(', ') }), evidence),
    };
  return { probe, base, evidence };
}

/** Whether a reading is back at the baseline: gauges no higher, KV usage no higher (within 0.1%). */
function atBaseline(now: Vals, base: Vals): boolean {
  const le = (k: 'running' | 'waiting') => now[k] === undefined || (now[k] as number) <= (base[k] ?? 0);
  const kv =
    now.kv_usage === undefined || base.kv_usage === undefined || now.kv_usage <= base.kv_usage + 0.001;
  return le('running') && le('waiting') && kv;
}

/**
 * After the clients left: how long until the gauges are back at the baseline (null: not within
 * {@link SETTLE_MS}), and how many tokens were generated in the {@link STOPPED_MS} after that.
 */
async function settleAfterAbort(
  probe: MetricsProbe,
  base: Vals,
): Promise<{ ms: number | null; last: Vals | undefined; tokensAfter: number | null }> {
  const clock = wallClock();
  let last: Vals | undefined;
  const ms = await waitFor(
    clock,
    async () => {
      last = (await probe.read())?.values;
      return !!last && atBaseline(last, base);
    },
    SETTLE_MS,
  );
  if (ms === null) return { ms, last, tokensAfter: null };
  const g0 = last?.generation_tokens_total;
  await pause(clock, STOPPED_MS);
  const g1 = (await probe.read())?.values.generation_tokens_total;
  return { ms, last, tokensAfter: g0 !== undefined && g1 !== undefined ? g1 - g0 : null };
}

/** Judge what {@link settleAfterAbort} saw. */
function settledResult(
  t: T,
  what: string,
  s: Awaited<ReturnType<typeof settleAfterAbort>>,
  base: Vals,
  evidence: Evidence[],
): SideResult {
  const observed = { settle_ms: s.ms === null ? null : Math.round(s.ms), tokens_after: s.tokensAfter };
  evidence.push({ note: t('gate-load.evidence.after', { ms: SETTLE_MS }), received: show(s.last) });
  if (s.ms === null)
    return {
      status: 'fail',
      reason: t('gate-load.cancel.not-settled', { what, ms: SETTLE_MS, base: show(base), now: show(s.last) }),
      observed,
      evidence,
    };
  if (s.tokensAfter !== null && s.tokensAfter > 0)
    return {
      status: 'fail',
      reason: t('gate-load.cancel.still-generating', { what, n: s.tokensAfter, ms: STOPPED_MS }),
      observed,
      evidence,
    };
  return { status: 'pass', observed, evidence };
}

/** Abort every request and wait until each has let go. */
async function abortAll(reqs: readonly OpenRequest[]): Promise<void> {
  for (const r of reqs) r.abort();
  await Promise.all(reqs.map((r) => r.done));
}

const disconnectMidStream: EachCheck = {
  kind: 'each',
  id: 'cancel.disconnect-mid-stream',
  number: '4.1',
  group: 'cancel',
  title: 'gate-load.title.disconnect-mid-stream',
  probe: false,
  async run(target, ctx) {
    const { t } = ctx;
    const b = await begin(target, t, ['running', 'generation_tokens_total']);
    if ('skip' in b) return b.skip;
    const { probe, base, evidence } = b;
    const clock = wallClock();
    const reqs = Array.from({ length: STREAMS }, (_, i) =>
      openChat(target, longBody(freshPrompt(ctx.seed, `disconnect-${i}`, 48), true), ctx.timeoutMs),
    );
    try {
      // Mid-stream: every stream has sent a few chunks (or, a second after the first did, the
      // rest wait for a batch slot: they are then cancelled while queued, which 4.2 judges).
      let first: number | null = null;
      const streaming = await waitFor(
        clock,
        () => {
          const going = reqs.filter((r) => r.events() >= 3).length;
          if (going && first === null) first = clock.now();
          return going === reqs.length || (first !== null && clock.now() - first >= 1000);
        },
        ctx.timeoutMs,
      );
      if (streaming === null || reqs.every((r) => r.ended())) {
        const codes = await Promise.all(reqs.map((r) => Promise.race([r.headers, Promise.resolve('none')])));
        return {
          status: 'fail',
          reason: t('gate-load.cancel.no-stream', { n: STREAMS, ms: ctx.timeoutMs, codes: codes.join(', ') }),
          evidence: [...evidence, { note: t('gate-load.evidence.sent'), sent: trimEvidence(reqs[0].body) }],
        };
      }
      const during = (await probe.read())?.values;
      evidence.push({ note: t('gate-load.evidence.during', { n: STREAMS }), received: show(during) });
      if (during?.running === undefined)
        return skipped(t('gate-load.skip.unobserved', { url: probe.url, failed: 1, n: STREAMS }), evidence);
      if (during.running <= (base.running ?? 0))
        return skipped(t('gate-load.skip.gauge-flat', { n: STREAMS }), evidence);
    } finally {
      await abortAll(reqs);
    }
    return settledResult(
      t,
      t('gate-load.what.disconnect', { n: STREAMS }),
      await settleAfterAbort(probe, base),
      base,
      evidence,
    );
  },
};

/**
 * How many streams fill the target's batch: twice its slots where it says how many it has
 * (llama.cpp's `/props` `total_slots`), else {@link SATURATION_CAP}. llama.cpp serves each open
 * stream on one of its HTTP threads (`--threads-http`), so 64 streams against 4 slots leave no
 * thread to answer `/metrics`, and the check would see nothing.
 */
async function streamsToSaturate(target: GateTarget, ctx: CheckContext): Promise<number> {
  const slots = propsContext(await propsOf(target, ctx))?.slots ?? null;
  return slots === null ? SATURATION_CAP : Math.min(SATURATION_CAP, 2 * slots);
}

/** Streams sent until the target queues some: {@link streamsToSaturate} at once. */
interface Saturation {
  reqs: OpenRequest[];
  /** Most requests the target ran at once beyond its baseline (its batch size). */
  running: number;
  /** Requests it queued beyond its baseline. */
  waiting: number;
  reading: Vals;
}

/**
 * Fill the target's batch: send {@link streamsToSaturate} long streams at once and wait until its
 * waiting gauge rises and every request is either streaming or queued. Null when nothing
 * waits (the batch is larger than the cap); the streams are then already aborted.
 */
async function saturate(target: GateTarget, probe: MetricsProbe, base: Vals, ctx: CheckContext, tag: string) {
  const clock = wallClock();
  const cap = await streamsToSaturate(target, ctx);
  const reqs = Array.from({ length: cap }, (_, i) =>
    openChat(target, longBody(freshPrompt(ctx.seed, `${tag}-${i}`, 16), true), ctx.timeoutMs),
  );
  let reading: Vals | undefined;
  // A scrape that failed, or came back without the gauges, saw nothing: "nothing waited" is said
  // only when most readings during the wait answered (a lone slow scrape on a busy machine does
  // not blind the check; a server whose /metrics is starved under the load does).
  let blind = 0;
  let seen = 0;
  const queued = await waitFor(
    clock,
    async () => {
      const r = (await probe.read())?.values;
      if (!r || r.running === undefined || r.waiting === undefined) {
        blind++;
        return false;
      }
      reading = r;
      seen++;
      const running = (reading?.running ?? 0) - (base.running ?? 0);
      const waiting = (reading?.waiting ?? 0) - (base.waiting ?? 0);
      const streaming = reqs.filter((r) => r.bytes() > 0 && !r.ended()).length;
      const ended = reqs.filter((r) => r.ended()).length;
      // Stable: every request is accounted for, streaming, waiting or refused.
      return waiting > 0 && streaming >= running && streaming + waiting + ended >= cap;
    },
    Math.min(ctx.timeoutMs, 5000),
    100,
  );
  if (queued === null || !reading) {
    await abortAll(reqs);
    return blind >= seen || !reading
      ? { blind: { reading, failed: blind }, sent: cap }
      : { none: reading, sent: cap };
  }
  const sat: Saturation = {
    reqs,
    running: (reading.running ?? 0) - (base.running ?? 0),
    waiting: (reading.waiting ?? 0) - (base.waiting ?? 0),
    reading,
  };
  return { sat, sent: cap };
}

/** The result of a {@link saturate} that saw nothing: why, or null when it did see. */
function unsaturated(
  t: T,
  s: Awaited<ReturnType<typeof saturate>>,
  url: string,
  evidence: Evidence[],
): SideResult | null {
  if ('blind' in s && s.blind)
    return skipped(t('gate-load.skip.unobserved', { url, failed: s.blind.failed, n: s.sent }), [
      ...evidence,
      { note: t('gate-load.evidence.during', { n: s.sent }), received: show(s.blind.reading) },
    ]);
  if ('none' in s) return notSaturated(t, s.none, evidence, s.sent);
  return null;
}

const notSaturated = (t: T, reading: Vals | undefined, evidence: Evidence[], n = SATURATION_CAP) =>
  skipped(t('gate-load.skip.not-saturated', { n, running: reading?.running ?? 'null' }), [
    ...evidence,
    { note: t('gate-load.evidence.during', { n }), received: show(reading) },
  ]);

const queuedNeverStart: EachCheck = {
  kind: 'each',
  id: 'cancel.queued-never-start',
  number: '4.2',
  group: 'cancel',
  title: 'gate-load.title.queued-never-start',
  probe: false,
  async run(target, ctx) {
    const { t } = ctx;
    const b = await begin(target, t, ['running', 'waiting', 'prompt_tokens_total']);
    if ('skip' in b) return b.skip;
    const { probe, base, evidence } = b;
    const s = await saturate(target, probe, base, ctx, 'queued');
    const none = unsaturated(t, s, probe.url, evidence);
    if (none || !('sat' in s) || !s.sat) return none ?? notSaturated(t, undefined, evidence);
    const { sat } = s;
    const queued = sat.reqs.filter((r) => r.bytes() === 0 && !r.ended());
    const running = sat.reqs.filter((r) => r.bytes() > 0 || r.ended());
    const clock = wallClock();
    let settled: number | null = null;
    let p0: number | undefined;
    let after: Vals | undefined;
    try {
      // The prompt tokens prefilled so far: those of the streaming requests. A queued request
      // that starts later (after its client left) adds its prompt to the counter.
      p0 = (await probe.read())?.values.prompt_tokens_total;
      evidence.push({
        note: t('gate-load.evidence.queued', { running: running.length, queued: queued.length }),
        received: show(sat.reading),
      });
      await abortAll(queued);
      settled = await waitFor(
        clock,
        async () => {
          after = (await probe.read())?.values;
          // a failed scrape is no sign that the queue emptied
          return after?.waiting !== undefined && after.waiting <= (base.waiting ?? 0);
        },
        SETTLE_MS,
      );
    } finally {
      await abortAll(running);
    }
    evidence.push({
      note: t('gate-load.evidence.after-queued', { n: queued.length }),
      received: show(after),
    });
    const s2 = await settleAfterAbort(probe, base);
    const p1 = s2.last?.prompt_tokens_total;
    const started = p0 !== undefined && p1 !== undefined ? p1 - p0 : null;
    const observed = {
      queued: queued.length,
      waiting_settle_ms: settled === null ? null : Math.round(settled),
      prompt_tokens_after: started,
    };
    if (settled === null && after?.waiting === undefined)
      return skipped(
        t('gate-load.skip.unobserved', { url: probe.url, failed: 1, n: running.length }),
        evidence,
      );
    if (settled === null)
      return {
        status: 'fail',
        reason: t('gate-load.cancel.queue-kept', { n: queued.length, ms: SETTLE_MS }),
        observed,
        evidence,
      };
    if (started !== null && started > 0)
      return {
        status: 'fail',
        reason: t('gate-load.cancel.queued-started', { n: queued.length, tokens: started }),
        observed,
        evidence: [
          ...evidence,
          { note: t('gate-load.evidence.after', { ms: SETTLE_MS }), received: show(s2.last) },
        ],
      };
    const r = settledResult(t, t('gate-load.what.saturation', { n: s.sent }), s2, base, evidence);
    return { ...r, observed: { ...observed, ...(r.observed as object) } };
  },
};

const clientTimeout: EachCheck = {
  kind: 'each',
  id: 'cancel.client-timeout',
  number: '4.3',
  group: 'cancel',
  title: 'gate-load.title.client-timeout',
  probe: false,
  async run(target, ctx) {
    const { t } = ctx;
    const b = await begin(target, t, ['running', 'generation_tokens_total']);
    if ('skip' in b) return b.skip;
    const { probe, base, evidence } = b;
    const clock = wallClock();
    // Long enough for a loaded server to count the request in its running gauge before the client
    // gives up (a 4096-token answer takes far longer), short enough to keep the gate quick.
    const timeoutMs = Math.min(ctx.timeoutMs, 2000);
    const req = openChat(target, longBody(freshPrompt(ctx.seed, 'timeout', 32), false, 4096), timeoutMs);
    let during: Vals | undefined;
    await waitFor(
      clock,
      async () => {
        during = (await probe.read())?.values;
        return (during?.running ?? 0) > (base.running ?? 0);
      },
      timeoutMs,
    );
    const end = await req.done;
    evidence.push(
      { note: t('gate-load.evidence.sent'), sent: trimEvidence(req.body) },
      { note: t('gate-load.evidence.during', { n: 1 }), received: show(during) },
    );
    if (end.error === null)
      return skipped(
        t('gate-load.skip.finished-first', { ms: timeoutMs, status: end.status ?? 'null' }),
        evidence,
      );
    if (during?.running === undefined)
      return skipped(t('gate-load.skip.unobserved', { url: probe.url, failed: 1, n: 1 }), evidence);
    if (during.running <= (base.running ?? 0))
      return skipped(t('gate-load.skip.gauge-flat', { n: 1 }), evidence);
    return settledResult(
      t,
      t('gate-load.what.timeout', { ms: timeoutMs }),
      await settleAfterAbort(probe, base),
      base,
      evidence,
    );
  },
};

/** GET /health once: its status (null: no answer) and how long it took, ms. */
async function health(target: GateTarget, clock: ReturnType<typeof wallClock>) {
  const t0 = clock.now();
  try {
    const res = await request(healthUrl(target), {
      method: 'GET',
      dispatcher: target.dispatcher,
      headersTimeout: 5000,
      bodyTimeout: 5000,
    });
    await res.body.dump();
    return { status: res.statusCode as number | null, ms: clock.now() - t0 };
  } catch {
    return { status: null, ms: clock.now() - t0 };
  }
}

const overloadHealth: EachCheck = {
  kind: 'each',
  id: 'cancel.overload-health',
  number: '4.4',
  group: 'cancel',
  title: 'gate-load.title.overload-health',
  probe: false,
  async run(target, ctx) {
    const { t } = ctx;
    const b = await begin(target, t, ['running', 'waiting']);
    if ('skip' in b) return b.skip;
    const { probe, base, evidence } = b;
    const s = await saturate(target, probe, base, ctx, 'overload-find');
    const none = unsaturated(t, s, probe.url, evidence);
    if (none || !('sat' in s) || !s.sat) return none ?? notSaturated(t, undefined, evidence);
    const batch = Math.max(1, s.sat.running);
    await abortAll(s.sat.reqs);
    await settleAfterAbort(probe, base);
    // 2× saturation: twice the batch, each slot sending short streams back to back.
    const slots = 2 * batch;
    const clock = wallClock();
    const until = clock.now() + OVERLOAD_MS;
    const statuses = new Map<string, number>();
    const bad: Evidence[] = [];
    const tally = (k: string) => statuses.set(k, (statuses.get(k) ?? 0) + 1);
    let seq = 0;
    const slot = async () => {
      while (clock.now() < until) {
        const r = openChat(
          target,
          {
            messages: [{ role: 'user', content: freshPrompt(ctx.seed, `overload-${seq++}`, 16) }],
            stream: true,
            max_tokens: 32,
          },
          ctx.timeoutMs,
        );
        const end = await r.done;
        const key = end.status === null ? (end.error ?? 'error') : String(end.status);
        tally(key);
        if (end.status !== 200 && end.status !== 429 && end.status !== 503 && bad.length < 3)
          bad.push({
            note: t('gate-load.evidence.overload-error', { status: key }),
            sent: trimEvidence(r.body),
            received: trimEvidence(end.body),
          });
        if (end.status === 429 || end.status === 503) await pause(clock, 20);
      }
    };
    const healthMs: number[] = [];
    const healthBad: string[] = [];
    const poll = async () => {
      while (clock.now() < until) {
        const h = await health(target, clock);
        healthMs.push(h.ms);
        if (h.status !== 200) healthBad.push(String(h.status));
        await pause(clock, 50);
      }
    };
    await Promise.all([...Array.from({ length: slots }, slot), poll()]);
    await settleAfterAbort(probe, base);
    healthMs.sort((a, b) => a - b);
    const p99 = healthMs.length ? percentile(healthMs, 99) : null;
    const observed = {
      batch,
      concurrency: slots,
      health_p99_ms: p99 === null ? null : Math.round(p99),
      statuses: Object.fromEntries(statuses),
    };
    evidence.push({
      note: t('gate-load.evidence.overload', { n: slots, ms: OVERLOAD_MS }),
      received: JSON.stringify(observed),
    });
    if (p99 === null || p99 >= HEALTH_P99_MS || healthBad.length)
      return {
        status: 'fail',
        reason: t('gate-load.cancel.health-slow', {
          p99: p99 === null ? 'null' : Math.round(p99),
          limit: HEALTH_P99_MS,
          n: slots,
          bad: healthBad.length,
        }),
        observed,
        evidence,
      };
    const others = [...statuses.keys()].filter((k) => k !== '200' && k !== '429' && k !== '503');
    if (others.length)
      return {
        status: 'fail',
        reason: t('gate-load.cancel.overload-errors', { statuses: others.join(', '), n: slots }),
        observed,
        evidence: [...evidence, ...bad],
      };
    return { status: 'pass', observed, evidence };
  },
};

export const checks: Check[] = [disconnectMidStream, queuedNeverStart, clientTimeout, overloadHealth];
