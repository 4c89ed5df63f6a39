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
} as const;
