/**
 * @module k8s/manifests
 * `servelab k8s render`: the Kubernetes objects that run one sharded load test, as
 * multi-document YAML. Kubernetes Indexed Jobs give each pod a stable index
 * (`JOB_COMPLETION_INDEX`, which `run --shard` reads) and fail-fast semantics
 * (kubernetes.io/docs/concepts/workloads/controllers/job/#completion-mode,
 * #backoff-limit-per-index, #pod-replacement-policy), so there is no servelab cluster:
 *
 * - a ConfigMap with the run's flags, the shard count and the common start;
 * - a ReadWriteMany PersistentVolumeClaim the shards write into;
 * - the shards' Job: `completionMode: Indexed`, `completions = parallelism = N`,
 *   `backoffLimitPerIndex: 0` and `maxFailedIndexes: 0` (a retried shard would start late),
 *   `podReplacementPolicy: Failed`, requests = limits (Guaranteed QoS);
 * - a merge Job that waits until N shard files exist or its deadline passes, then runs
 *   `servelab merge --expect N`;
 * - a PodMonitor (Prometheus Operator, monitoring.coreos.com/v1) for the shards' `--metrics-port`.
 *
 * Objects are built and validated with `kubernetes-models` (the API's OpenAPI schemas); the
 * PodMonitor is a custom resource that package has no schema for.
 */
import { Job } from 'kubernetes-models/batch/v1';
import { ConfigMap, PersistentVolumeClaim } from 'kubernetes-models/v1';
import { stringify } from 'yaml';

export interface RenderOptions {
  shards: number;
  /** `run`'s flags, passed through (`servelab k8s render --shards 3 -- --url … --rate 50`). */
  runArgs: readonly string[];
  /** The common start, RFC 3339 (UTC). */
  startAt: string;
  name: string;
  image: string;
  cpu: string;
  memory: string;
  storage: string;
  /** Seconds the merge Job waits for every shard file before it merges what is there. */
  mergeWaitS: number;
  metricsPort: number;
}

/** POSIX shell single-quoting, so a flag value with spaces survives `eval`. */
function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The objects, validated (throws on an object the API would refuse). */
export function renderObjects(o: RenderOptions): Record<string, unknown>[] {
  const labels = { 'app.kubernetes.io/name': 'servelab', 'app.kubernetes.io/instance': o.name };
  const results = `${o.name}-results`;
  const config = `${o.name}-config`;
  const resources = { requests: { cpu: o.cpu, memory: o.memory }, limits: { cpu: o.cpu, memory: o.memory } };
  const volume = { name: 'results', persistentVolumeClaim: { claimName: results } };
  const mount = { name: 'results', mountPath: '/results' };
  const cm = new ConfigMap({
    metadata: { name: config, labels },
    data: {
      SERVELAB_SHARD_COUNT: String(o.shards),
      SERVELAB_START_AT: o.startAt,
      SERVELAB_RUN_ARGS: o.runArgs.map(shellQuote).join(' '),
    },
  });
  const pvc = new PersistentVolumeClaim({
    metadata: { name: results, labels },
    spec: { accessModes: ['ReadWriteMany'], resources: { requests: { storage: o.storage } } },
  });
  const shardJob = new Job({
    metadata: { name: `${o.name}-shards`, labels },
    spec: {
      completionMode: 'Indexed',
      completions: o.shards,
      parallelism: o.shards,
      backoffLimitPerIndex: 0,
      maxFailedIndexes: 0,
      podReplacementPolicy: 'Failed',
      template: {
        metadata: { labels: { ...labels, 'servelab.dev/role': 'shard' } },
        spec: {
          restartPolicy: 'Never',
          containers: [
            {
              name: 'shard',
              image: o.image,
              envFrom: [{ configMapRef: { name: config } }],
              command: ['sh', '-c'],
              // JOB_COMPLETION_INDEX (set by the Indexed Job) and SERVELAB_SHARD_COUNT make --shard.
              args: [
                `eval "exec servelab run $SERVELAB_RUN_ARGS --start-at $SERVELAB_START_AT --metrics-port ${o.metricsPort} --no-db --out /results"`,
              ],
              ports: [{ name: 'metrics', containerPort: o.metricsPort }],
              resources,
              volumeMounts: [mount],
            },
          ],
          volumes: [volume],
        },
      },
    },
  });
  const files = `/results/report.shard-*-of-${o.shards}.json`;
  const mergeJob = new Job({
    metadata: { name: `${o.name}-merge`, labels },
    spec: {
      backoffLimit: 0,
      template: {
        metadata: { labels: { ...labels, 'servelab.dev/role': 'merge' } },
        spec: {
          restartPolicy: 'Never',
          containers: [
            {
              name: 'merge',
              image: o.image,
              command: ['sh', '-c'],
              args: [
                [
                  `deadline=$(( $(date +%s) + ${o.mergeWaitS} ))`,
                  `while [ "$(ls ${files} 2>/dev/null | wc -l)" -lt ${o.shards} ] && [ "$(date +%s)" -lt "$deadline" ]; do sleep 5; done`,
                  `exec servelab merge --expect ${o.shards} ${files} --out /results/merged`,
                ].join('\n'),
              ],
              resources: {
                requests: { cpu: '500m', memory: '512Mi' },
                limits: { cpu: '500m', memory: '512Mi' },
              },
              volumeMounts: [mount],
            },
          ],
          volumes: [volume],
        },
      },
    },
  });
  for (const obj of [cm, pvc, shardJob, mergeJob]) obj.validate();
  const podMonitor = {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PodMonitor',
    metadata: { name: `${o.name}-shards`, labels },
    spec: {
      selector: { matchLabels: { ...labels, 'servelab.dev/role': 'shard' } },
      podMetricsEndpoints: [{ port: 'metrics', path: '/metrics', interval: '5s' }],
    },
  };
  const objects = [cm, pvc, shardJob, mergeJob].map((o) => o.toJSON() as Record<string, unknown>);
  return [...objects, podMonitor];
}

/** The objects as multi-document YAML. */
export function renderYaml(o: RenderOptions): string {
  return renderObjects(o)
    .map((obj) => stringify(obj, { lineWidth: 0 }))
    .join('---\n');
}
