import type { cliHelp as en } from '../en/cli-help.js';

/** commander 在 `--help` 中附加的文字（用法行的占位符，选项的默认值、可选值、预设值和环境变量）。 */
export const cliHelp: Record<keyof typeof en, string> = {
  'cli.help.options_arg': '[选项]',
  'cli.help.command_arg': '[命令]',
  'cli.help.extra': '{description}（{extra}）',
  'cli.help.extra_only': '（{extra}）',
  'cli.help.extra_sep': '，',
  'cli.help.default': '默认：{value}',
  'cli.help.choices': '可选值：{values}',
  'cli.help.preset': '不带值时：{value}',
  'cli.help.env': '环境变量：{name}',
};
