/**
 * The words commander adds to `--help` around the declarations' own (`cli/help`): the usage
 * line's placeholders and an option's default, choices, preset and environment variable.
 */
export const cliHelp = {
  'cli.help.options_arg': '[options]',
  'cli.help.command_arg': '[command]',
  // an option's description, then what commander adds ({extra}: the items below, joined)
  'cli.help.extra': '{description} ({extra})',
  'cli.help.extra_only': '({extra})',
  'cli.help.extra_sep': ', ',
  'cli.help.default': 'default: {value}',
  'cli.help.choices': 'choices: {values}',
  'cli.help.preset': 'preset: {value}',
  'cli.help.env': 'env: {name}',
  // commander's own errors (commander v14.0.3 lib/command.js, lib/suggestSimilar.js), each line
  // matched as a whole and said again in the reader's language (cli/help commanderError)
  'cli.commander.missing_argument': "error: missing required argument '{name}'",
  'cli.commander.option_argument_missing': "error: option '{flags}' argument missing",
  'cli.commander.required_option': "error: required option '{flags}' not specified",
  'cli.commander.invalid_value': "error: option '{flags}' argument '{value}' is invalid.",
  'cli.commander.unknown_option': "error: unknown option '{flag}'",
  'cli.commander.unknown_command': "error: unknown command '{name}'",
  'cli.commander.too_many': 'error: too many arguments. Expected {expected} arguments but got {got}.',
  'cli.commander.too_many_one': 'error: too many arguments. Expected {expected} argument but got {got}.',
  'cli.commander.too_many_for':
    "error: too many arguments for '{command}'. Expected {expected} arguments but got {got}.",
  'cli.commander.too_many_for_one':
    "error: too many arguments for '{command}'. Expected {expected} argument but got {got}.",
  'cli.commander.did_you_mean': '(Did you mean {name}?)',
  'cli.commander.did_you_mean_one_of': '(Did you mean one of {names}?)',
} as const;
