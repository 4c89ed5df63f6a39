/**
 * @module exp/harness/targets
 * An experiment's targets, live: a URL (a running engine), a simulator servelab starts behind
 * HTTP, or the simulator in this process on a virtual clock. Starting one probes it (reachable,
 * engine, models; the GPU when it is local) and builds its experiment record; closing stops the
 * simulators started here.
 */

import { probeTarget } from '../../client/engine-probe.js';
import { redactUrl } from '../../client/index.js';
import type { ApiEndpoint } from '../../client/types.js';
import { UsageError } from '../../core/errors.js';
import { rememberSecret, rememberUrlSecrets } from '../../core/redact.js';
import { hostOf, isLocalUrl, serverRoot, withV1, withV1Note } from '../../core/url.js';
import type { T } from '../../i18n/index.js';
import { simEndpoint, urlEndpoint } from '../../pipeline/endpoint.js';
import { type SimServerOptions, startSimServer } from '../../sim/server/index.js';
import { toSimServerOptions, withSimDefaults } from '../../sim/settings.js';
import { buildExperimentRecord, hostInfo, nodeExec, probeGpu } from '../experiment-record.js';
import type { Generation, SharedFile, SimOptions, TargetSpec } from '../fields.js';
import type { ExpDeps, LiveTarget } from '../kinds/context.js';

/**
 * Simulator options (file, snake_case) → server options (camelCase), by the settings schema
 * (`sim/settings`): unset settings at their defaults, every setting converted the same way,
 * the catalogue file loaded.
 */
export function simServerOptions(s: SimOptions): SimServerOptions {
  return toSimServerOptions(withSimDefaults(s));
}

/** Generation of a target: the top-level settings with the target's overrides. */
export function targetGeneration(exp: SharedFile, t: TargetSpec): Generation {
  return { ...exp.generation, ...(t.generation ?? {}) } as Generation;
}

function bodyExtras(gen: Generation, t: TargetSpec): Record<string, unknown> {
  const out: Record<string, unknown> = { ...(t.extra_body ?? {}) };
  if (gen.thinking !== undefined) {
    const prev = (out.chat_template_kwargs as Record<string, unknown> | undefined) ?? {};
    out.chat_template_kwargs = { ...prev, enable_thinking: gen.thinking };
  }
  if (gen.seed !== undefined) out.seed = gen.seed;
  return out;
}

/** Start or reach the target `name` of `exp`, probe it and build its record. */
export async function startTarget(
  exp: SharedFile,
  name: string,
  t: TargetSpec,
  deps: Pick<ExpDeps, 'env' | 'log'>,
  tr: T,
): Promise<LiveTarget> {
  const gen = targetGeneration(exp, t);
  const base: LiveTarget = {
    name,
    spec: t,
    mode: 'http',
    model: '',
    endpoint: (t.endpoint ?? exp.endpoint) as ApiEndpoint,
    generation: gen,
    extraBody: bodyExtras(gen, t),
    baseUrl: '',
    live: urlEndpoint(''),
    headers: { ...(t.headers ?? {}) },
    sim: null,
    simOptions: null,
    record: null,
  };
  const host = hostInfo();
  if (t.sim) {
    const opts = simServerOptions(t.sim);
    base.simOptions = opts;
    if (t.sim.clock === 'virtual') {
      // The simulator in this process, on a virtual clock, reached through the same HTTP client
      // as any server. Its engine timings ride along in each response (`timings`), as with
      // `expose_timings` over HTTP, so kinds that need the engine's own times have them (not the
      // per-chunk stamps, which nothing reads here and which cost about a quarter of a long run's CPU).
      base.mode = 'virtual';
      base.live = await simEndpoint(
        { ...opts, timeScale: 1, exposeTimings: true, unstampedChunks: true },
        { virtual: true },
      );
      base.baseUrl = base.live.baseUrl;
      base.model = base.live.sim?.modelId ?? '';
      deps.log(tr('exp.progress.sim_virtual', { name, model: base.model, gpu: opts.gpu ?? t.sim.gpu }));
    } else {
      const sim = await startSimServer(opts);
      base.sim = sim;
      base.baseUrl = `${sim.url}/v1`;
      base.live = urlEndpoint(base.baseUrl);
      base.model = sim.modelId;
      deps.log(
        tr('exp.progress.sim_live', {
          name,
          model: sim.modelId,
          gpu: opts.gpu ?? t.sim.gpu,
          url: sim.url,
          scale: opts.timeScale,
        }),
      );
    }
  } else {
    const given = withV1(t.url as string);
    base.baseUrl = given.url;
    const note = withV1Note(given, tr);
    if (note) deps.log(tr('exp.progress.note', { name, note }));
    const local = t.local ?? isLocalUrl(base.baseUrl);
    base.live = urlEndpoint(base.baseUrl, { local });
    base.model = t.model ?? exp.model ?? '';
    if (t.api_key_env) base.apiKey = deps.env[t.api_key_env] || undefined;
    rememberSecret(base.apiKey);
    rememberUrlSecrets(t.url as string);
  }
  const probe = await base.live.settle(
    probeTarget(base.baseUrl, {
      apiKey: base.apiKey,
      headers: base.headers,
      dispatcher: base.live.dispatcher ?? undefined,
    }),
  );
  if (!probe.reachable)
    throw new UsageError([
      {
        path: `targets.${name}`,
        message: tr('exp.usage.unreachable', { url: serverRoot(base.baseUrl) }),
        hint: tr('exp.usage.unreachable_hint', { host: hostOf(base.baseUrl) }),
      },
    ]);
  const gpu = base.live.local ? await probeGpu(nodeExec()) : null;
  base.record = buildExperimentRecord({ spec: exp, targetName: name, probe, gpu, host });
  if (!t.sim)
    deps.log(
      tr('exp.progress.server', {
        name,
        url: redactUrl(base.baseUrl),
        engine: `${probe.engine}${probe.engine_version ? ` ${probe.engine_version}` : ''}`,
      }),
    );
  return base;
}

/** How much faster than real time the target runs: `time_scale` of a real-time sim, else 1. */
export function timeScale(t: LiveTarget): number {
  return t.sim ? (t.simOptions?.timeScale ?? 1) : 1;
}

/** Stop the simulators servelab started for these targets, and close their endpoints. */
export async function closeTargets(targets: readonly LiveTarget[]): Promise<void> {
  await Promise.all(targets.map((t) => Promise.all([t.sim?.close(), t.live.close()])));
}
