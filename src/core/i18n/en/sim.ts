/** Prose of the "sim" section (keys `sim.*`): what `servelab sim` and `plan` say about the simulator. */
export const sim = {
  'sim.fidelity.low':
    'simulator fidelity (low load): median |error| {median}%, max {max}% over {rows} public measurements (docs/fidelity.md)',
  'sim.fidelity.saturation':
    'simulator fidelity (saturation): median |error| {median}%, max {max}% over {rows} public measurements (docs/fidelity.md)',
  'sim.listening': 'listening on {url} (OpenAI base URL)',
  'sim.draining': 'SIGTERM: draining (new requests get 503); a second signal stops at once',
  'sim.drained': 'drained: every request in flight finished',
  'sim.drain_timeout': 'drain timed out',
  'sim.stopped': 'simulator stopped',
} as const;
