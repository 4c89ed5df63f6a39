/**
 * @module exp/harness/cache-reset
 * Emptying a target's prefix cache before a run (`cache.reset`, `cache.policy: cold`): the
 * engines' reset endpoints (through the client), and the refusal to compare a target that could be made
 * cold with one that could not.
 */
import { type CacheResetHow, resetPrefixCache } from '../../client/engine-api.js';
import { UsageError } from '../../core/errors.js';
import { RealClock } from '../../runtime/clock.js';
import type { SharedFile } from '../fields.js';
import type { CacheReset, LiveTarget } from '../kinds/context.js';

/**
 * Empty the target's prefix cache through the client's `resetPrefixCache` (vLLM's
 * `POST /reset_prefix_cache`, then SGLang's `POST /flush_cache`, as `cache.reset` allows), on the
 * target's clock and dispatcher: the in-process simulator answers the first, as `servelab sim` does.
 */
export function resetCache(
  t: LiveTarget,
  how: SharedFile['cache']['reset'],
  signal?: AbortSignal,
): Promise<CacheReset> {
  // The file schema admits only the client's reset ways (`cacheSchema.reset`).
  return resetPrefixCache(t.baseUrl, how as CacheResetHow, {
    apiKey: t.apiKey,
    headers: t.headers,
    dispatcher: t.live.dispatcher ?? undefined,
    clock: t.live.virtual ? t.live.runClock() : new RealClock(),
    settle: (p) => t.live.settle(p),
    signal,
  });
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
