/**
 * @module store/liveness
 * The one place that asks the operating system whether a process still exists. A run row
 * left `running` by a process that died (SIGKILL, OOM, power loss) is shown as `interrupted`;
 * this check is how the store tells the two apart.
 */

/**
 * True when a process with this pid exists on this host. Signal 0 checks existence and
 * permission without delivering anything: ESRCH means gone, EPERM means it exists but belongs
 * to someone else (so it is alive).
 */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Status values shared by experiments and runs. */
export type LifecycleStatus = 'running' | 'completed' | 'interrupted' | 'failed';

/**
 * The status to show for a stored row. A row still marked `running` whose writer lived on
 * this host and is gone is `interrupted`; a writer on another host cannot be checked, so its
 * row stays `running`.
 */
export function effectiveStatus(
  stored: LifecycleStatus,
  pid: number | null,
  host: string | null,
  thisHost: string,
  isAlive: (pid: number) => boolean,
): LifecycleStatus {
  if (stored !== 'running' || pid === null || host !== thisHost) return stored;
  return isAlive(pid) ? 'running' : 'interrupted';
}
