import type { cli as en } from '../en/cli.js';

/** "cli" 部分的文字：用法错误的框架、最常见的参数问题和提示，以及各命令共用的行。 */
export const cli: Record<keyof typeof en, string> = {
  'cli.hint': '提示：{hint}',
  'cli.error.invalid_usage': '错误：用法不正确',
  'cli.error.unknown_option': '错误：未知选项',
  'cli.error.unknown_options': '错误：未知选项',
  'cli.error.did_you_mean': '（你是不是想用 {flag}？）',
  'cli.error.unknown_hint':
    "参见 'servelab {command} --help'；docs/cli.md 列出了 vLLM bench 参数与 servelab 参数的对应关系",
  'cli.error.see_help': "参见 'servelab {command} --help'",
  'cli.error.target': '错误：{message}',
  'cli.error.internal': 'servelab：内部错误（这是一个 bug，请报告）',
};
