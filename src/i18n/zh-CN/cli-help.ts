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
  'cli.commander.missing_argument': "错误：缺少必需的参数 '{name}'",
  'cli.commander.option_argument_missing': "错误：选项 '{flags}' 缺少取值",
  'cli.commander.required_option': "错误：未给出必需的选项 '{flags}'",
  'cli.commander.invalid_value': "错误：选项 '{flags}' 的取值 '{value}' 无效。",
  'cli.commander.unknown_option': "错误：未知选项 '{flag}'",
  'cli.commander.unknown_command': "错误：未知命令 '{name}'",
  'cli.commander.too_many': '错误：参数过多：应有 {expected} 个，实际给了 {got} 个。',
  'cli.commander.too_many_one': '错误：参数过多：应有 {expected} 个，实际给了 {got} 个。',
  'cli.commander.too_many_for': "错误：'{command}' 的参数过多：应有 {expected} 个，实际给了 {got} 个。",
  'cli.commander.too_many_for_one': "错误：'{command}' 的参数过多：应有 {expected} 个，实际给了 {got} 个。",
  'cli.commander.did_you_mean': '（你是不是想用 {name}？）',
  'cli.commander.did_you_mean_one_of': '（你是不是想用其中之一：{names}？）',
};
