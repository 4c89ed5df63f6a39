/**
 * @module exp/harness/cache-reset
 * Emptying a target's prefix cache before a run (`cache.reset`, `cache.policy: cold`): the
 * engines' reset endpoints over HTTP, and the refusal to compare a target that could be made
 * cold with one that could not.
 */
import { request } from 'undici';
import { UsageError } from '../../core/errors.js';
import { targetHeaders } from '../../core/headers.js';
import { RealClock } from '../../runtime/clock.js';
import type { SharedFile } from '../fields.js';
import type { CacheReset, LiveTarget } from '../kinds/context.js';
import { serverRoot } from '../record.js';

/**
 * Empty the target's prefix cache: vLLM's `POST /reset_prefix_cache`, then SGLang's
 * `POST /flush_cache` (as `cache.reset` allows); the in-process simulator answers the first,
 * as `servelab sim` does. Returns `unsupported` when neither endpoint exists.
 */
export async function resetCache(
  t: LiveTarget,
  how: SharedFile['cache']['reset'],
  signal?: AbortSignal,
): Promise<CacheReset> {
  if (how === 'none') return 'skipped';
  const paths =
    how === 'vllm'
      ? ['/reset_prefix_cache']
      : how === 'sglang'
        ? ['/flush_cache']
        : ['/reset_prefix_cache', '/flush_cache'];
  const root = serverRoot(t.baseUrl);
  const headers = targetHeaders(t.apiKey, t.headers);
  const dispatcher = t.live.dispatcher ?? undefined;
  const clock = t.live.virtual ? t.live.runClock() : new RealClock();
  const attempt = async (p: string): Promise<number | null> => {
    try {
      const res = await request(`${root}${p}`, {
        method: 'POST',
        headers,
        headersTimeout: 10_000,
        bodyTimeout: 10_000,
        dispatcher,
      });
      await res.body.text();
      return res.statusCode;
    } catch {
      return null;
    }
  };
  for (const p of paths) {
    // A busy engine refuses (409); requests of the previous run may still be releasing blocks.
    for (let i = 0; i < 5; i++) {
      const status = await t.live.settle(attempt(p));
      if (status !== null && status < 300) return 'reset';
      if (status !== 409) break;
      await t.live.settle(clock.sleepUntil(clock.now() + 50 * (i + 1), signal));
    }
  }
  return 'unsupported';
}

/**
 * Apply `cache.policy: cold` before a run: reset every target (by `reset`), and refuse to compare
 * a target that could be reset with one that could not (a warm target against a cold one).
 */
export async function ensureCold(
  targets: readonly LiveTarget[],
  reset: (t: LiveTarget) => Promise<CacheReset>,
): Promise<Record<string, string>> {
  const states: Record<string, string> = {};
  for (const t of targets) states[t.name] = await reset(t);
  const unsupported = targets.filter((t) => states[t.name] === 'unsupported');
  if (unsupported.length)
    throw new UsageError(
      unsupported.map((t) => ({
        path: `targets.${t.name}`,
        message:
          targets.length > unsupported.length
            ? 'this target has no cache reset endpoint (/reset_prefix_cache, /flush_cache) while the others were reset: comparing a warm target with a cold one is refused'
            : 'this target has no cache reset endpoint (/reset_prefix_cache, /flush_cache)',
        hint: 'restart the engine to empty its cache, then run with cache.reset: none',
      })),
    );
  return states;
}
