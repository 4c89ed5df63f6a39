/**
 * @module cli/commands/k8s
 * `servelab k8s render --shards N [--start-at T | --start-in S] -- RUN FLAGS…`: the Indexed Job,
 * ConfigMap, results volume, merge Job and PodMonitor (k8s/manifests) as YAML on stdout.
 */
import type { Problem } from '../../core/errors.js';
import { renderYaml } from '../../k8s/manifests.js';
import { parseShardSettings } from '../../pipeline/shard.js';
import { unixNowMs } from '../../runtime/clock.js';
import type { Io } from '../io.js';
import { langOf } from '../options.js';
import { optNumber, throwIfProblems } from './common.js';

export interface RawRender {
  shards: string;
  startAt?: string;
  startIn?: string;
  name: string;
  image: string;
  cpu: string;
  memory: string;
  storage: string;
  mergeWait: string;
  metricsPort: string;
  lang?: string;
}

export async function k8sRenderCommand(runArgs: string[], raw: RawRender, io: Io): Promise<number> {
  const problems: Problem[] = [];
  const t = langOf(raw.lang, io.env, problems);
  const shards = optNumber(raw.shards, '--shards', problems, { int: true, min: 1 }, t) ?? 1;
  const s = parseShardSettings(
    { shard: `0/${shards}`, startAt: raw.startAt, startIn: raw.startIn },
    {},
    unixNowMs(),
    problems,
    t,
  );
  if (s && s.startAtUnixMs === null && !problems.length)
    problems.push({ path: '--start-at', message: t('shard.start.required'), hint: t('shard.start.hint') });
  const mergeWaitS = optNumber(raw.mergeWait, '--merge-wait', problems, { int: true, min: 0 }, t) ?? 3600;
  const metricsPort =
    optNumber(raw.metricsPort, '--metrics-port', problems, { int: true, min: 1 }, t) ?? 9464;
  throwIfProblems(problems);
  io.stdout.write(
    renderYaml({
      shards,
      runArgs,
      // --start-in counts from when the shards come up, not from now (k8s/manifests startInScript)
      start:
        raw.startIn !== undefined
          ? { inS: Math.ceil(Number(raw.startIn)) } // the pod's shell counts whole seconds
          : { at: new Date(s?.startAtUnixMs as number).toISOString() },
      name: raw.name,
      image: raw.image,
      cpu: raw.cpu,
      memory: raw.memory,
      storage: raw.storage,
      mergeWaitS,
      metricsPort,
    }),
  );
  return 0;
}
