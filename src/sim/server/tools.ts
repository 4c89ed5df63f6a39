/**
 * @module sim/server/tools
 * Tool calling in the simulator: which tools a chat request calls (a documented, deterministic
 * rule standing in for the model's choice) and their arguments, generated from each tool's
 * `parameters` schema by `sim/server/structured` (the one JSON-from-schema generator).
 *
 * The rule, for `tool_choice`:
 *  - `none`, or no `tools`: no call.
 *  - `auto` (the default with tools): only when the last message is the user's (after a
 *    `role: "tool"` message the model answers in text). The tools whose name appears in that
 *    message as a whole word (case-insensitive) are called, in the order of `tools`; if none is
 *    named but the message says "use/call … tool" (`/\b(use|call)\b.*\btools?\b/i`), the first
 *    tool is called. Otherwise a text answer.
 *  - `required`: the tools the rule above picks, or else the first tool (whatever the last message).
 *  - `{type: "function", function: {name}}`: that tool.
 * With `parallel_tool_calls: false` only the first picked tool is called.
 */
import { mix32 } from './text.js';

/** A function tool as the request declares it. */
export interface ToolSpec {
  name: string;
  /** The `parameters` JSON Schema (absent: no arguments, `{}`). */
  parameters?: Record<string, unknown>;
}

/** `tool_choice`, parsed. */
export type ToolChoice = 'none' | 'auto' | 'required' | { name: string };

/** One call the simulated model makes. */
export interface PlannedToolCall {
  /** `chatcmpl-tool-<32 hex>`, as vLLM names them; the same for the same request seed. */
  id: string;
  name: string;
  /** The arguments' JSON text. */
  arguments: string;
}

/** What the rule reads of a request. */
export interface ToolRequest {
  tools: readonly ToolSpec[];
  toolChoice: ToolChoice;
  parallelToolCalls: boolean;
  /** Role and text of the last message. */
  lastRole: string;
  lastText: string;
}

const ASKS_FOR_A_TOOL = /\b(use|call)\b.*\btools?\b/i;

/** The tools the request calls, by the rule in the module comment (empty: a text answer). */
export function pickTools(r: ToolRequest): ToolSpec[] {
  if (r.toolChoice === 'none' || r.tools.length === 0) return [];
  if (typeof r.toolChoice === 'object') {
    const name = r.toolChoice.name;
    return r.tools.filter((t) => t.name === name).slice(0, 1);
  }
  let picked: ToolSpec[] = [];
  if (r.lastRole === 'user') {
    const text = r.lastText.toLowerCase();
    picked = r.tools.filter((t) => mentions(text, t.name.toLowerCase()));
    if (picked.length === 0 && ASKS_FOR_A_TOOL.test(r.lastText)) picked = [r.tools[0]];
  }
  if (picked.length === 0 && r.toolChoice === 'required') picked = [r.tools[0]];
  return r.parallelToolCalls ? picked : picked.slice(0, 1);
}

/** `name` occurs in `text` not inside a longer identifier. */
function mentions(text: string, name: string): boolean {
  for (let at = text.indexOf(name); at >= 0; at = text.indexOf(name, at + 1)) {
    const before = text[at - 1];
    const after = text[at + name.length];
    if (!isIdent(before) && !isIdent(after)) return true;
  }
  return false;
}

function isIdent(c: string | undefined): boolean {
  return c !== undefined && /[a-z0-9_]/i.test(c);
}

/** The id of call `index` of a response whose text seed is `seed`. */
export function toolCallId(seed: number, index: number): string {
  let s = 'chatcmpl-tool-';
  for (let i = 0; i < 4; i++)
    s += mix32(seed ^ 0x7001, index * 4 + i)
      .toString(16)
      .padStart(8, '0');
  return s;
}
