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
} as const;
