/**
 * The English catalogue, which defines the keys. One section per stage, so work on different
 * stages never edits the same file; a key is `section.name`.
 */

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

export const en = {
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
} as const;
