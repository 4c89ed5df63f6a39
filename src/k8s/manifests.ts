/**
 * @module k8s/manifests
 * `servelab k8s render`: the Kubernetes objects that run one sharded load test, as
 * multi-document YAML. Kubernetes Indexed Jobs give each pod a stable index
 * (`JOB_COMPLETION_INDEX`, which `run --shard` reads) and fail-fast semantics
 * (kubernetes.io/docs/concepts/workloads/controllers/job/#completion-mode,
 * #backoff-limit-per-index, #pod-replacement-policy), so there is no servelab cluster:
 *
 * - a ConfigMap with the run's flags, the shard count and the common start (an instant, or
 *   `SERVELAB_START_IN`: seconds after the first shard comes up, agreed on through the volume);
 * - when the flags carry credentials (URL userinfo, a credential header, `--api-key`), a Secret
 *   with those flags, read by the shards' Job through `secretKeyRef`
 *   (kubernetes.io/docs/concepts/configuration/secret/#using-secrets-as-environment-variables),
 *   so no key is ever in the ConfigMap;
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
import { ConfigMap, PersistentVolumeClaim, Secret } from 'kubernetes-models/v1';
import { stringify } from 'yaml';
import { isSecretName, looksLikeCredential } from '../core/redact.js';

export interface RenderOptions {
  shards: number;
  /** `run`'s flags, passed through (`servelab k8s render --shards 3 -- --url … --rate 50`). */
  runArgs: readonly string[];
  /**
   * The common start: an instant (`at`, RFC 3339, UTC; `--start-at`), or `inS` seconds after the
   * first shard pod comes up (`--start-in`, whole seconds), so a manifest applied later still
   * starts on time.
   */
  start: { at: string } | { inS: number };
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

/**
 * The shell lines a shard runs before `servelab run`, with `--start-in`: the shards agree on
 * one start computed when they come up, not when the manifest was rendered. The first shard to
 * get here writes `now + SERVELAB_START_IN` (whole seconds, RFC 3339) to its own file and links it to the
 * run's start file on the shared volume; link(2) fails when the name exists, so exactly one
 * shard's time wins, and the file is complete before it has that name (open(2) recommends
 * link(2) over O_EXCL for this on NFS: man7.org/linux/man-pages/man2/open.2.html). Every shard
 * then reads the winner's time. The file is named for the Job's uid, which the downward API
 * gives each pod from the Job's `batch.kubernetes.io/controller-uid` label
 * (kubernetes.io/docs/concepts/workloads/pods/downward-api/,
 * kubernetes.io/docs/reference/labels-annotations-taints/#batchkubernetesiocontroller-uid), so
 * a Job applied again on the same volume never reads an old run's start.
 */
export function startInScript(dir: string): string[] {
  const shared = `${dir}/start-at.$SERVELAB_JOB_UID`;
  const mine = `${dir}/.start-at.$SERVELAB_JOB_UID.$JOB_COMPLETION_INDEX`;
  return [
    // POSIX sh arithmetic; `date -d @SECONDS` is in GNU coreutils and BusyBox (Alpine)
    `date -u -d "@$(( $(date +%s) + SERVELAB_START_IN ))" +%Y-%m-%dT%H:%M:%SZ > "${mine}"`,
    `ln "${mine}" "${shared}" 2>/dev/null || true`,
    `rm -f "${mine}"`,
    `SERVELAB_START_AT="$(cat "${shared}")"`,
  ];
}

/** Whether a flag's value carries a credential: URL userinfo, a credential header, a key. */
function isCredentialArg(flag: string, value: string): boolean {
  if (flag === '--api-key') return true;
  if (/^[a-z][a-z0-9+.-]*:\/\/[^/@\s]+@/i.test(value)) return true;
  if (flag === '--header' || flag === '-H') {
    const i = value.indexOf(':');
    return (i > 0 && isSecretName(value.slice(0, i))) || looksLikeCredential(value.slice(i + 1));
  }
  return false;
}

/**
 * `run`'s flags split in two: those that may go into a ConfigMap, and those that carry a
 * credential (each with its value), which go into the Secret.
 */
export function splitCredentialArgs(args: readonly string[]): { plain: string[]; secret: string[] } {
  const plain: string[] = [];
  const secret: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    if (eq > 0) {
      (isCredentialArg(a.slice(0, eq), a.slice(eq + 1)) ? secret : plain).push(a);
      continue;
    }
    const next = args[i + 1];
    if (a.startsWith('-') && next !== undefined && !next.startsWith('-') && isCredentialArg(a, next)) {
      secret.push(a, next);
      i++;
    } else (isCredentialArg('', a) ? secret : plain).push(a);
  }
  return { plain, secret };
}

/** The objects, validated (throws on an object the API would refuse). */
export function renderObjects(o: RenderOptions): Record<string, unknown>[] {
  const labels = { 'app.kubernetes.io/name': 'servelab', 'app.kubernetes.io/instance': o.name };
  const results = `${o.name}-results`;
  const config = `${o.name}-config`;
  const resources = { requests: { cpu: o.cpu, memory: o.memory }, limits: { cpu: o.cpu, memory: o.memory } };
  const volume = { name: 'results', persistentVolumeClaim: { claimName: results } };
  const mount = { name: 'results', mountPath: '/results' };
  const args = splitCredentialArgs(o.runArgs);
  const secretName = `${o.name}-credentials`;
  const secretArgs = args.secret.length
    ? [
        {
          name: 'SERVELAB_SECRET_ARGS',
          valueFrom: { secretKeyRef: { name: secretName, key: 'SERVELAB_SECRET_ARGS' } },
        },
      ]
    : [];
  const run = `eval "exec servelab run $SERVELAB_RUN_ARGS${args.secret.length ? ' $SERVELAB_SECRET_ARGS' : ''} --start-at $SERVELAB_START_AT --metrics-port ${o.metricsPort} --no-db --out /results"`;
  const jobUid = {
    name: 'SERVELAB_JOB_UID',
    valueFrom: { fieldRef: { fieldPath: "metadata.labels['batch.kubernetes.io/controller-uid']" } },
  };
  const cm = new ConfigMap({
    metadata: { name: config, labels },
    data: {
      SERVELAB_SHARD_COUNT: String(o.shards),
      ...('at' in o.start ? { SERVELAB_START_AT: o.start.at } : { SERVELAB_START_IN: String(o.start.inS) }),
      SERVELAB_RUN_ARGS: args.plain.map(shellQuote).join(' '),
    },
  });
  // base64 in `data`, as the API stores it: the key is not readable at a glance in the YAML.
  const secret = args.secret.length
    ? new Secret({
        metadata: { name: secretName, labels },
        type: 'Opaque',
        data: {
          SERVELAB_SECRET_ARGS: Buffer.from(args.secret.map(shellQuote).join(' ')).toString('base64'),
        },
      })
    : null;
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
              ...('at' in o.start && !secretArgs.length
                ? {}
                : { env: ['at' in o.start ? [] : [jobUid], secretArgs].flat() }),
              command: ['sh', '-c'],
              // JOB_COMPLETION_INDEX (set by the Indexed Job) and SERVELAB_SHARD_COUNT make --shard.
              args: [[...('at' in o.start ? [] : startInScript('/results')), run].join('\n')],
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
  for (const obj of [cm, ...(secret ? [secret] : []), pvc, shardJob, mergeJob]) obj.validate();
  const podMonitor = {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PodMonitor',
    metadata: { name: `${o.name}-shards`, labels },
    spec: {
      selector: { matchLabels: { ...labels, 'servelab.dev/role': 'shard' } },
      podMetricsEndpoints: [{ port: 'metrics', path: '/metrics', interval: '5s' }],
    },
  };
  const objects = [cm, ...(secret ? [secret] : []), pvc, shardJob, mergeJob].map(
    (o) => o.toJSON() as Record<string, unknown>,
  );
  return [...objects, podMonitor];
}

/** The objects as multi-document YAML. */
export function renderYaml(o: RenderOptions): string {
  return renderObjects(o)
    .map((obj) => stringify(obj, { lineWidth: 0 }))
    .join('---\n');
}
