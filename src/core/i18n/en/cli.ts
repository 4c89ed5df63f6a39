/**
 * Prose of the "cli" section (keys `cli.*`): the framing of usage errors (src/cli/main.ts), the
 * most common problems and hints of the flags (src/cli/options.ts), and lines every command
 * shares.
 */
export const cli = {
  'cli.hint': 'hint: {hint}',
  'cli.error.invalid_usage': 'error: invalid usage',
  'cli.error.unknown_option': 'error: unknown option',
  'cli.error.unknown_options': 'error: unknown options',
  'cli.error.did_you_mean': '(did you mean {flag}?)',
  'cli.error.unknown_hint':
    "see 'servelab {command} --help'; docs/cli.md maps vLLM's bench flags to servelab's",
  'cli.error.see_help': "see 'servelab {command} --help'",
  'cli.error.target': 'error: {message}',
  'cli.error.internal': 'servelab: internal error (a bug; please report it)',
  'cli.problem.expected_number': 'expected a number, got "{value}"',
  'cli.problem.expected_positive_int': 'expected a positive integer, got "{value}"',
  'cli.problem.expected_price': 'expected a price, got "{value}"',
  'cli.problem.price_hint': 'e.g. --gpu-hour-usd 2.5',
} as const;
