/**
 * @module runtime/abort
 * One `abort` listener per signal, fanned out to everyone waiting on it.
 *
 * A run's stop signal is waited on by every user's think-time sleep, every request in flight
 * and every voice stage at once. Adding one DOM listener each puts more than Node's threshold
 * of 10 on one `AbortSignal` and prints `MaxListenersExceededWarning: Possible EventTarget
 * memory leak detected` (https://nodejs.org/api/events.html#eventssetmaxlistenersn-eventtargets),
 * although nothing leaks. Here each signal gets a single listener, registered the first time
 * anyone waits on it; the waiters are a set that each removes itself from when done, so the
 * count on the signal stays 1 however many wait, and raising the limit is never needed.
 */

const waiters = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Call `fn` once when `signal` aborts, like `addEventListener('abort', fn, { once: true })`
 * (not called when the signal is already aborted; check `signal.aborted` first). Returns the
 * function that stops waiting; call it when the work the signal could cancel is over.
 */
export function whenAborted(signal: AbortSignal, fn: () => void): () => void {
  let set = waiters.get(signal);
  if (set === undefined) {
    const fresh = new Set<() => void>();
    set = fresh;
    waiters.set(signal, fresh);
    signal.addEventListener(
      'abort',
      () => {
        waiters.delete(signal);
        for (const w of [...fresh]) w();
      },
      { once: true },
    );
  }
  const waiter = () => fn(); // a fresh identity, so one fn can wait twice
  const own = set;
  own.add(waiter);
  return () => {
    own.delete(waiter);
  };
}
