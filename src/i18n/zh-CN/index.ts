/**
 * The Chinese (zh-CN) catalogue: every key of the English one, in the same sections. A key
 * missing here is a compile error.
 */
import type { en } from '../en/index.js';
import { check } from './check.js';
import { cli } from './cli.js';
import { cliHelp } from './cli-help.js';
import { common } from './common.js';
import { dashboard } from './dashboard.js';
import { diagnose } from './diagnose.js';
import { exp } from './exp.js';
import { gate } from './gate.js';
import { gateLoad } from './gate-load.js';
import { kindAnswers } from './kind-answers.js';
import { lesson } from './lesson.js';
import { otlp } from './otlp.js';
import { report } from './report.js';
import { run } from './run.js';
import { schedule } from './schedule.js';
import { sessions } from './sessions.js';
import { shard } from './shard.js';
import { sim } from './sim.js';
import { source } from './source.js';
import { steps } from './steps.js';
import { team } from './team.js';
import { template } from './template.js';
import { trace } from './trace.js';
import { voice } from './voice.js';
import { writeup } from './writeup.js';

export const zhCN: Record<keyof typeof en, string> = {
  ...common,
  ...gate,
  ...gateLoad,
  ...report,
  ...dashboard,
  ...writeup,
  ...diagnose,
  ...cli,
  ...cliHelp,
  ...check,
  ...run,
  ...schedule,
  ...sessions,
  ...shard,
  ...sim,
  ...source,
  ...steps,
  ...team,
  ...template,
  ...exp,
  ...trace,
  ...voice,
  ...kindAnswers,
  ...lesson,
  ...otlp,
};
