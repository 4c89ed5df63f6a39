/**
 * @module monitor/nvidia-smi
 * Reads local GPUs through `nvidia-smi --query-gpu=... --format=csv,noheader,nounits`, the
 * second way servelab sees the GPU (the first is DCGM series in a scrape). Only used when the
 * target is on this machine: a remote server's GPU is not ours to read. The process runner is
 * injected so tests can swap it; the default resolves `nvidia-smi` on PATH, which is how the
 * tests put a fake one in front.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { mean } from '../analysis/stats.js';
import { isLocalUrl } from '../core/url.js';
import type { Normalized } from './maps.js';
import type { ScrapeSource } from './source.js';

/** Shared with `exp` (core/url); re-exported as part of monitoring's surface. */
export { isLocalUrl };

/** Runs a command; resolves with its stdout, rejects on a non-zero exit, a spawn error or abort. */
export type ExecFn = (
  file: string,
  args: readonly string[],
  opts: { signal?: AbortSignal },
) => Promise<string>;

/** The exact query servelab sends; the column order is what {@link parseNvidiaSmiCsv} expects. */
export const NVIDIA_SMI_ARGS = [
  '--query-gpu=index,name,memory.used,memory.total,utilization.gpu',
  '--format=csv,noheader,nounits',
] as const;

/** One GPU's reading. Fields nvidia-smi reports as `[N/A]` or `[Not Supported]` are null. */
export interface GpuReading {
  index: number;
  name: string;
  memory_used_mib: number | null;
  memory_total_mib: number | null;
  utilization_gpu_pct: number | null;
}

/** Default {@link ExecFn}: `child_process.execFile`, no shell, 1 MiB of output at most. */
export const execFileText: ExecFn = (file, args, opts) =>
  new Promise((resolve, reject) => {
    execFile(
      file,
      [...args],
      { signal: opts.signal, maxBuffer: 1 << 20, encoding: 'utf8' },
      (err, stdout) => {
        if (err) reject(err);
        else resolve(stdout);
      },
    );
  });

/**
 * Parse `index, name, memory.used [MiB], memory.total [MiB], utilization.gpu [%]` lines.
 * nvidia-smi separates fields with `", "`; the name is taken as everything between the first
 * field and the last three, so a name containing a comma still parses.
 *
 * @example
 * parseNvidiaSmiCsv('0, NVIDIA H100 80GB HBM3, 72837, 81559, 96\n')
 * // [{ index: 0, name: 'NVIDIA H100 80GB HBM3', memory_used_mib: 72837, memory_total_mib: 81559, utilization_gpu_pct: 96 }]
 */
export function parseNvidiaSmiCsv(stdout: string): GpuReading[] {
  const out: GpuReading[] = [];
  for (const raw of stdout.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    const parts = line.split(',').map((p) => p.trim());
    if (parts.length < 5) throw new Error(`unexpected nvidia-smi line: ${JSON.stringify(line)}`);
    const index = Number(parts[0]);
    if (!Number.isInteger(index))
      throw new Error(`unexpected nvidia-smi GPU index: ${JSON.stringify(parts[0])}`);
    const [used, total, util] = parts.slice(-3).map(num);
    out.push({
      index,
      name: parts.slice(1, -3).join(', '),
      memory_used_mib: used,
      memory_total_mib: total,
      utilization_gpu_pct: util,
    });
  }
  return out;
}

function num(s: string): number | null {
  // `[N/A]`, `[Not Supported]`, `[Unknown Error]` and friends are all bracketed.
  if (s.startsWith('[') || s === '') return null;
  const v = Number(s);
  return Number.isFinite(v) ? v : null;
}

/** Run nvidia-smi once and parse it. Rejects when nvidia-smi fails or prints something unexpected. */
export async function readNvidiaSmi(
  exec: ExecFn = execFileText,
  signal?: AbortSignal,
): Promise<GpuReading[]> {
  return parseNvidiaSmiCsv(await exec('nvidia-smi', NVIDIA_SMI_ARGS, { signal }));
}

/**
 * Whether an executable `nvidia-smi` is on PATH. Looks at the file system instead of running
 * it, because a missing driver makes nvidia-smi slow to fail.
 *
 * @param pathEnv the PATH to search (defaults to this process's).
 */
export function hasNvidiaSmi(pathEnv: string | undefined = process.env.PATH): boolean {
  for (const dir of (pathEnv ?? '').split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, 'nvidia-smi'), constants.X_OK);
      return true;
    } catch {
      // not in this directory
    }
  }
  return false;
}

/** Vocabulary values for a set of GPUs: memory summed (MiB), utilisation averaged (%). */
export function gpuVocab(readings: readonly GpuReading[]): Normalized {
  const out: Normalized = {};
  const mem = readings.map((r) => r.memory_used_mib).filter((v): v is number => v !== null);
  const util = readings.map((r) => r.utilization_gpu_pct).filter((v): v is number => v !== null);
  if (mem.length > 0) out.gpu_memory_used_mib = mem.reduce((a, b) => a + b, 0);
  const utilMean = mean(util);
  if (utilMean !== null) out.gpu_util_pct = utilMean;
  return out;
}

/**
 * nvidia-smi as a {@link ScrapeSource} for the scraper (name `nvidia-smi`): memory in MiB summed
 * over GPUs, utilisation in % averaged. Use it only for a local target ({@link isLocalUrl}).
 */
export function nvidiaSmiSource(exec: ExecFn = execFileText): ScrapeSource {
  return {
    name: 'nvidia-smi',
    async read(signal) {
      return { values: gpuVocab(await readNvidiaSmi(exec, signal)) };
    },
  };
}

/**
 * The GPU sources to scrape for a target: nvidia-smi when the target runs on this machine and
 * nvidia-smi is installed, otherwise none (DCGM series in the engine scrape still count).
 *
 * @param targetUrl the target's base URL.
 */
export function localGpuSources(
  targetUrl: string,
  opts: { pathEnv?: string; exec?: ExecFn } = {},
): ScrapeSource[] {
  if (!isLocalUrl(targetUrl) || !hasNvidiaSmi(opts.pathEnv ?? process.env.PATH)) return [];
  return [nvidiaSmiSource(opts.exec)];
}
