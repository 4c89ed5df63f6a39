/**
 * Gate checks, group 6 "tools" (docs/gate.md): tool calls come back with arguments that parse
 * and validate against the tool's `parameters` (ajv) and are equal as objects streamed and not;
 * `tool_choice: required`, a named tool, a tool without arguments and parallel calls work; a
 * tool result is answered in text; no tool markup leaks into `content`. A server that refuses
 * tools (a 4xx) skips the group with its reason.
 */
import { isDeepStrictEqual } from 'node:util';
import { type ChoiceView, parseJson, readChat } from '../chat-view.js';
import { type Exchange, evidenceOf, exchange } from '../http.js';
import { fail, pass, skipped } from '../result.js';
import type { Check, CheckContext, EachCheck, GateTarget, SideResult } from '../types.js';
import { each, makeValidator, once, userChat } from './shared.js';

const WEATHER_PARAMS = {
  type: 'object',
  properties: {
    city: { type: 'string', minLength: 1 },
    unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
  },
  required: ['city', 'unit'],
  additionalProperties: false,
};
const TIME_PARAMS = {
  type: 'object',
  properties: { timezone: { type: 'string', minLength: 1 } },
  required: ['timezone'],
  additionalProperties: false,
};

const TOOLS = [
  {
    type: 'function',
    function: { name: 'get_weather', description: 'Weather in a city', parameters: WEATHER_PARAMS },
  },
  {
    type: 'function',
    function: { name: 'get_time', description: 'Time in a timezone', parameters: TIME_PARAMS },
  },
  { type: 'function', function: { name: 'get_status', description: 'Status of the service, no arguments' } },
];
const PARAMS: Record<string, object> = { get_weather: WEATHER_PARAMS, get_time: TIME_PARAMS, get_status: {} };

const PROMPT = 'Use the get_weather tool to get the weather in Paris in celsius.';

function body(content: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return userChat(content, { tools: TOOLS, max_tokens: 128, temperature: 0, ...extra });
}

/** Markup tool parsers turn into tool_calls; in `content` it means the parser missed it. */
const MARKUP =
  /<tool_call>|<\/tool_call>|\[TOOL_CALLS\]|<\|python_tag\|>|<function=|<\|tool_call|<tool_calls?_begin/;

/** The arguments of each call: parsed, and valid against the tool's parameters; or why not. */
function argsProblem(c: ChoiceView, ctx: CheckContext): string | null {
  for (const call of c.toolCalls) {
    const schema = PARAMS[call.name];
    if (!schema) return ctx.t('gate.tools.unknown-name', { name: call.name });
    const v = parseJson(call.arguments);
    if (v === undefined || v === null || typeof v !== 'object')
      return ctx.t('gate.tools.args-not-json', { name: call.name, args: JSON.stringify(call.arguments) });
    if (!makeValidator(schema)(v))
      return ctx.t('gate.tools.args-invalid', { name: call.name, args: call.arguments.slice(0, 120) });
  }
  return null;
}

/** The first request of the group, shared: a 4xx here means the server does not do tools. */
function required(target: GateTarget, ctx: CheckContext, stream: boolean): Promise<Exchange> {
  return once(target, `tools.required.${stream}`, () =>
    exchange(target, ctx, body(PROMPT, { tool_choice: 'required', stream })),
  );
}

function unsupported(x: Exchange, ctx: CheckContext): SideResult | null {
  if (x.status !== null && x.status >= 400 && x.status < 500)
    return skipped(
      ctx.t('gate.tools.unsupported', { status: x.status, error: x.result.record.error ?? '' }),
      [evidenceOf(x, ctx.t('gate.evidence.response'))],
    );
  if (x.status !== 200)
    return fail(
      ctx.t('gate.request.failed', { status: x.status ?? '-', error: x.result.record.error ?? '' }),
      [evidenceOf(x, ctx.t('gate.evidence.response'))],
    );
  return null;
}

function check(
  id: Parameters<typeof each>[1],
  number: string,
  run: (target: GateTarget, ctx: CheckContext) => Promise<SideResult>,
): EachCheck {
  return each(number, id, true, {
    async run(target, ctx) {
      const first = await required(target, ctx, false);
      return unsupported(first, ctx) ?? run(target, ctx);
    },
  });
}

/** Judge one answer that must call `names` (in order), with valid arguments. */
function calls(x: Exchange, names: string[], ctx: CheckContext, note: string): SideResult {
  const bad = unsupported(x, ctx);
  if (bad) return bad;
  const c = readChat(x).choices[0];
  const got = c?.toolCalls.map((t) => t.name) ?? [];
  if (!c || got.join(',') !== names.join(','))
    return fail(ctx.t('gate.tools.wrong-calls', { want: names.join(', '), got: got.join(', ') || '-' }), [
      evidenceOf(x, note),
    ]);
  const p = argsProblem(c, ctx);
  if (p) return fail(p, [evidenceOf(x, note)]);
  if (!c.finishReasons.includes('tool_calls'))
    return fail(ctx.t('gate.tools.finish', { reason: c.finishReasons.join(', ') || '-' }), [
      evidenceOf(x, note),
    ]);
  return pass(got.join(','));
}

const parity = check('tools.stream-parity', '6.1', async (target, ctx) => {
  const plain = await required(target, ctx, false);
  const streamed = await required(target, ctx, true);
  for (const [x, note] of [
    [plain, ctx.t('gate.evidence.body')],
    [streamed, ctx.t('gate.evidence.stream')],
  ] as const) {
    const r = calls(x, ['get_weather'], ctx, note);
    if (r.status !== 'pass') return r;
  }
  const a = readChat(plain).choices[0].toolCalls.map((t) => [t.name, parseJson(t.arguments)]);
  const b = readChat(streamed).choices[0].toolCalls.map((t) => [t.name, parseJson(t.arguments)]);
  if (!isDeepStrictEqual(a, b))
    return fail(ctx.t('gate.tools.parity', { plain: JSON.stringify(a), streamed: JSON.stringify(b) }), [
      evidenceOf(plain, ctx.t('gate.evidence.body')),
      evidenceOf(streamed, ctx.t('gate.evidence.stream')),
    ]);
  return pass(a.length);
});

const requiredChoice = check('tools.required', '6.2', async (target, ctx) => {
  // a prompt that names no tool: `required` must call one anyway
  const x = await exchange(target, ctx, body('Tell me something useful.', { tool_choice: 'required' }));
  const bad = unsupported(x, ctx);
  if (bad) return bad;
  const c = readChat(x).choices[0];
  if (!c || c.toolCalls.length === 0)
    return fail(ctx.t('gate.tools.no-call'), [evidenceOf(x, ctx.t('gate.evidence.body'))]);
  const p = argsProblem(c, ctx);
  return p ? fail(p, [evidenceOf(x, ctx.t('gate.evidence.body'))]) : pass(c.toolCalls.length);
});

const named = check('tools.named', '6.3', async (target, ctx) => {
  const x = await exchange(
    target,
    ctx,
    body('What time is it in Tokyo (Asia/Tokyo)?', {
      tool_choice: { type: 'function', function: { name: 'get_time' } },
    }),
  );
  return calls(x, ['get_time'], ctx, ctx.t('gate.evidence.body'));
});

const zeroArgs = check('tools.zero-args', '6.4', async (target, ctx) => {
  const x = await exchange(
    target,
    ctx,
    body('Check the service status.', {
      tool_choice: { type: 'function', function: { name: 'get_status' } },
    }),
  );
  const r = calls(x, ['get_status'], ctx, ctx.t('gate.evidence.body'));
  if (r.status !== 'pass') return r;
  const args = parseJson(readChat(x).choices[0].toolCalls[0].arguments);
  if (!isDeepStrictEqual(args, {}))
    return fail(ctx.t('gate.tools.args-invalid', { name: 'get_status', args: JSON.stringify(args) }), [
      evidenceOf(x, ctx.t('gate.evidence.body')),
    ]);
  return pass('{}');
});

const parallel = check('tools.parallel', '6.5', async (target, ctx) => {
  const x = await exchange(
    target,
    ctx,
    body('Call get_weather for Paris in celsius and get_time for Europe/Paris, both at once.', {
      parallel_tool_calls: true,
      stream: true,
    }),
  );
  return calls(x, ['get_weather', 'get_time'], ctx, ctx.t('gate.evidence.stream'));
});

const roundTrip = check('tools.round-trip', '6.6', async (target, ctx) => {
  const first = readChat(await required(target, ctx, false)).choices[0];
  const call = first?.toolCalls[0];
  if (!call) return fail(ctx.t('gate.tools.no-call'));
  const id = call.id ?? 'call_0';
  const x = await exchange(target, ctx, {
    messages: [
      { role: 'user', content: PROMPT },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id, type: 'function', function: { name: call.name, arguments: call.arguments } }],
      },
      { role: 'tool', tool_call_id: id, content: '{"temperature": 21, "unit": "celsius"}' },
    ],
    tools: TOOLS,
    max_tokens: 64,
    temperature: 0,
  });
  if (x.status !== 200)
    return fail(
      ctx.t('gate.request.failed', { status: x.status ?? '-', error: x.result.record.error ?? '' }),
      [evidenceOf(x, ctx.t('gate.evidence.response'))],
    );
  const c = readChat(x).choices[0];
  if (!c || c.content.trim() === '' || c.toolCalls.length > 0)
    return fail(ctx.t('gate.tools.round-trip.fail', { calls: c?.toolCalls.length ?? 0 }), [
      evidenceOf(x, ctx.t('gate.evidence.body')),
    ]);
  return pass('text');
});

const noMarkup = check('tools.no-markup', '6.7', async (target, ctx) => {
  for (const stream of [false, true]) {
    const x = await required(target, ctx, stream);
    const c = readChat(x).choices[0];
    const m = c?.content.match(MARKUP);
    if (m)
      return fail(ctx.t('gate.tools.markup', { markup: m[0] }), [
        evidenceOf(x, ctx.t(stream ? 'gate.evidence.stream' : 'gate.evidence.body')),
      ]);
  }
  return pass(true);
});

export const checks: Check[] = [parity, requiredChoice, named, zeroArgs, parallel, roundTrip, noMarkup];
