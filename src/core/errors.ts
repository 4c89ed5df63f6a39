/**
 * @module core/errors
 * Exit codes and user-facing errors. A user error prints its problems with hints and never
 * a stack trace; anything else is a bug and prints the stack.
 */

/** Exit codes shared by every servelab command. When several apply: 130 > 1 > 3 > 2. */
export const ExitCode = {
  ok: 0,
  usage: 1,
  thresholdFailed: 2,
  nothingSucceeded: 3,
  interrupted: 130,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** Pick the exit code that wins when several conditions hold (130 > 1 > 3 > 2 > 0). */
export function worstExitCode(codes: readonly number[]): number {
  const order = [ExitCode.interrupted, ExitCode.usage, ExitCode.nothingSucceeded, ExitCode.thresholdFailed];
  for (const c of order) if (codes.includes(c)) return c;
  return ExitCode.ok;
}

/** One problem found while validating input: where, what, and what to do about it. */
export interface Problem {
  /** Where the problem is: a flag (`--rate`), a file path with a field path (`s.yaml: load.levels[2]`). */
  path?: string;
  message: string;
  hint?: string;
}

/** Invalid usage: every problem at once, each with a hint. Exit code 1. */
export class UsageError extends Error {
  readonly code = 'SERVELAB_USAGE';
  readonly problems: Problem[];

  constructor(problems: Problem[] | string, hint?: string) {
    const list = typeof problems === 'string' ? [{ message: problems, hint }] : problems;
    super(list.map((p) => formatProblem(p)).join('\n'));
    this.name = 'UsageError';
    this.problems = list;
  }
}

/** The target could not be reached or nothing succeeded. Exit code 3. */
export class TargetError extends Error {
  readonly code = 'SERVELAB_TARGET';
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'TargetError';
  }
}

export function formatProblem(p: Problem, hint: (h: string) => string = (h) => `hint: ${h}`): string {
  const head = p.path ? `${p.path}: ${p.message}` : p.message;
  return p.hint ? `${head}\n    ${hint(p.hint)}` : head;
}
