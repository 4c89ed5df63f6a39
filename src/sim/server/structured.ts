/**
 * @module sim/server/structured
 * Structured output for the simulator: a JSON value generated from a JSON Schema, deterministically
 * from a seed, and the schema checks that turn a bad `response_format` (or tool `parameters`) into
 * a 400. One generator serves `response_format: json_schema | json_object` and tool-call
 * arguments (`sim/server/tools`).
 *
 * What it honours: `type` (one or a list), `properties` + `required` (every required property,
 * about half of the optional ones, none past depth 4), `enum`, `const`, `anyOf`/`oneOf` (one
 * branch), `allOf` (merged shallowly), `$ref` to `#/$defs/…` or `#/definitions/…`, strings'
 * `minLength`/`maxLength` and `format` (date, date-time, time, email, uuid, uri), numbers'
 * `minimum`/`maximum`/`exclusiveMinimum`/`exclusiveMaximum`/`multipleOf` (integers), arrays'
 * `items`, `minItems`, `maxItems`, `uniqueItems` (best effort). What it does not: `pattern`,
 * `not`, `if`/`then`, `patternProperties`, `prefixItems`: a schema using them is accepted (a real
 * engine accepts it) but the output may not conform to those keywords.
 *
 * Output is compact JSON (`JSON.stringify`), cut into tokens with the approximate tokenizer's
 * pieces (`approximatePieces`): the pieces join back to the exact text, and their count is what
 * the simulator's tokenizer would give.
 */
import { createRequire } from 'node:module';
import type { Ajv } from 'ajv';
import { approximatePieces } from '../../tokenizer/index.js';
import { BadRequest } from './body.js';
import { mix32, VOCABULARY } from './text.js';

/** A JSON Schema as the request gives it. */
export type JsonSchema = Record<string, unknown>;

const TYPES = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);

/**
 * Meta-schema checks only (unknown keywords are allowed, as vLLM's xgrammar backend allows them).
 * Loaded and built on the first schema: loading ajv and compiling its meta-schema cost every
 * `plan` and `sim` start ~50 ms, and most runs never send a schema.
 */
let ajvInstance: Ajv | null = null;
function metaValidator(): Ajv {
  if (ajvInstance === null) {
    const { Ajv: AjvClass } = createRequire(import.meta.url)('ajv') as typeof import('ajv');
    ajvInstance = new AjvClass({ strict: false, validateSchema: true, allErrors: false });
  }
  return ajvInstance;
}

/**
 * Check a schema the simulator will generate from; throws {@link BadRequest} (a 400) naming
 * `param`. A schema must be an object (or `true`), its `type` values known JSON types, and every
 * `$ref` resolvable within it.
 */
export function checkSchema(schema: unknown, param: string): void {
  if (schema === true) return;
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema))
    throw new BadRequest(`Invalid JSON schema in '${param}': the schema must be an object.`, param);
  walk(schema as JsonSchema, schema as JsonSchema, param, 0);
  const ajv = metaValidator();
  if (!ajv.validateSchema(schema)) {
    const e = ajv.errors?.[0];
    throw new BadRequest(
      `Invalid JSON schema in '${param}': ${e ? `${e.instancePath || '(root)'} ${e.message}` : 'not a JSON Schema'}.`,
      param,
    );
  }
}

function walk(s: unknown, root: JsonSchema, param: string, depth: number): void {
  if (typeof s === 'boolean') return;
  if (s === null || typeof s !== 'object' || Array.isArray(s))
    throw new BadRequest(`Invalid JSON schema in '${param}': a subschema must be an object.`, param);
  if (depth > 64) throw new BadRequest(`Invalid JSON schema in '${param}': nested too deeply.`, param);
  const o = s as JsonSchema;
  if (o.type !== undefined) {
    const types = Array.isArray(o.type) ? o.type : [o.type];
    if (types.length === 0) throw new BadRequest(`Invalid JSON schema in '${param}': empty 'type'.`, param);
    for (const t of types)
      if (typeof t !== 'string' || !TYPES.has(t))
        throw new BadRequest(
          `Invalid JSON schema in '${param}': unknown type ${JSON.stringify(t)} (expected one of ${[...TYPES].join(', ')}).`,
          param,
        );
  }
  if (o.enum !== undefined && (!Array.isArray(o.enum) || o.enum.length === 0))
    throw new BadRequest(`Invalid JSON schema in '${param}': 'enum' must be a non-empty list.`, param);
  if (typeof o.$ref === 'string') resolveRef(o.$ref, root, param);
  if (o.properties !== undefined) {
    if (o.properties === null || typeof o.properties !== 'object' || Array.isArray(o.properties))
      throw new BadRequest(`Invalid JSON schema in '${param}': 'properties' must be an object.`, param);
    for (const v of Object.values(o.properties)) walk(v, root, param, depth + 1);
  }
  if (o.items !== undefined && !Array.isArray(o.items)) walk(o.items, root, param, depth + 1);
  for (const k of ['anyOf', 'oneOf', 'allOf'])
    if (o[k] !== undefined) {
      const list = o[k];
      if (!Array.isArray(list) || list.length === 0)
        throw new BadRequest(`Invalid JSON schema in '${param}': '${k}' must be a non-empty list.`, param);
      for (const v of list) walk(v, root, param, depth + 1);
    }
  for (const k of ['$defs', 'definitions'])
    if (o[k] && typeof o[k] === 'object')
      for (const v of Object.values(o[k])) walk(v, root, param, depth + 1);
}

function resolveRef(ref: string, root: JsonSchema, param: string): unknown {
  if (ref === '#') return root;
  const m = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  const defs = m ? (root[m[1]] as Record<string, unknown> | undefined) : undefined;
  const target = m && defs ? defs[m[2].replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  if (target === undefined)
    throw new BadRequest(
      `Invalid JSON schema in '${param}': cannot resolve $ref ${JSON.stringify(ref)} (only #/$defs/… and #/definitions/…).`,
      param,
    );
  return target;
}

/** A deterministic stream of 32-bit draws from one seed. */
class Draws {
  private i = 0;
  constructor(private readonly seed: number) {}
  u32(): number {
    return mix32(this.seed, this.i++);
  }
  /** Integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return hi <= lo ? lo : lo + (this.u32() % (hi - lo + 1));
  }
  chance(p: number): boolean {
    return this.u32() / 4294967296 < p;
  }
  word(): string {
    return VOCABULARY[this.u32() % VOCABULARY.length].slice(1);
  }
}

/**
 * A JSON value conforming to `schema` (within the keywords listed in the module comment), the
 * same for the same (schema, seed).
 *
 * @example
 * generateFromSchema({ type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] }, 7)
 * // → { n: 42 } (some integer in [0, 100])
 */
export function generateFromSchema(schema: unknown, seed: number): unknown {
  const root = (schema && typeof schema === 'object' ? schema : {}) as JsonSchema;
  return gen(schema, root, new Draws(seed), 0);
}

/** `response_format: {type: "json_object"}`: a small object of words and numbers. */
export function generateJsonObject(seed: number): unknown {
  const d = new Draws(seed);
  const out: Record<string, unknown> = {};
  const n = d.int(1, 4);
  for (let i = 0; i < n; i++) {
    const key = `${d.word()}_${i}`;
    out[key] = d.chance(0.5) ? sentence(d, 1, 6) : d.int(0, 1000);
  }
  return out;
}

/** JSON text of a generated value cut into tokens (joined, they are the text). */
export function jsonTokens(value: unknown): string[] {
  return approximatePieces(JSON.stringify(value));
}

function sentence(d: Draws, minWords: number, maxWords: number): string {
  const n = d.int(minWords, maxWords);
  const words: string[] = [];
  for (let i = 0; i < n; i++) words.push(d.word());
  return words.join(' ');
}

const MAX_DEPTH = 4;

function gen(s: unknown, root: JsonSchema, d: Draws, depth: number): unknown {
  if (s === true || s === undefined || s === null || typeof s !== 'object') return sentence(d, 1, 3);
  const o = s as JsonSchema;
  if ('const' in o) return o.const;
  if (Array.isArray(o.enum)) return o.enum[d.u32() % o.enum.length];
  if (typeof o.$ref === 'string') return gen(resolveRef(o.$ref, root, 'schema'), root, d, depth + 1);
  if (Array.isArray(o.allOf)) return gen(mergeAll(o), root, d, depth);
  for (const k of ['anyOf', 'oneOf'] as const) {
    const list = o[k];
    // Past the depth limit, prefer a branch without recursion (one that is not a $ref).
    if (Array.isArray(list) && list.length) {
      const pick =
        depth >= MAX_DEPTH
          ? (list.find((b) => !(b && typeof b === 'object' && '$ref' in b)) ?? list[0])
          : list[d.u32() % list.length];
      const rest = { ...o };
      delete rest[k];
      return gen(Object.keys(rest).length ? mergeAll({ allOf: [rest, pick] }) : pick, root, d, depth);
    }
  }
  let type = o.type;
  if (Array.isArray(type)) {
    // Past the depth limit, prefer a leaf type (null, a scalar) so recursion ends.
    const leaf = type.find((t) => t !== 'object' && t !== 'array');
    type = depth >= MAX_DEPTH && leaf ? leaf : type[d.u32() % type.length];
  }
  if (type === undefined) type = o.properties ? 'object' : o.items ? 'array' : 'string';
  switch (type) {
    case 'object':
      return genObject(o, root, d, depth);
    case 'array':
      return genArray(o, root, d, depth);
    case 'integer':
      return genInteger(o, d);
    case 'number':
      return genNumber(o, d);
    case 'boolean':
      return d.chance(0.5);
    case 'null':
      return null;
    default:
      return genString(o, d);
  }
}

function mergeAll(o: JsonSchema): JsonSchema {
  const out: JsonSchema = { ...o };
  delete out.allOf;
  const props: Record<string, unknown> = { ...((o.properties as object) ?? {}) };
  const required = new Set<string>((o.required as string[]) ?? []);
  for (const part of o.allOf as unknown[]) {
    if (!part || typeof part !== 'object') continue;
    const p = part as JsonSchema;
    for (const [k, v] of Object.entries(p)) {
      if (k === 'properties') Object.assign(props, v);
      else if (k === 'required') for (const r of v as string[]) required.add(r);
      else out[k] = v;
    }
  }
  if (Object.keys(props).length) out.properties = props;
  if (required.size) out.required = [...required];
  return out;
}

function genObject(o: JsonSchema, root: JsonSchema, d: Draws, depth: number): Record<string, unknown> {
  const props = (o.properties ?? {}) as Record<string, unknown>;
  const required = new Set(Array.isArray(o.required) ? (o.required as string[]) : []);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(props))
    if (required.has(k) || (depth < MAX_DEPTH && d.chance(0.5))) out[k] = gen(v, root, d, depth + 1);
  // Required names without a property schema: any value will do.
  for (const k of required) if (!(k in out)) out[k] = sentence(d, 1, 2);
  const minProps = typeof o.minProperties === 'number' ? o.minProperties : 0;
  if (o.additionalProperties !== false)
    for (let i = 0; Object.keys(out).length < minProps; i++) {
      const extra = o.additionalProperties;
      out[`${d.word()}_${i}`] =
        extra && typeof extra === 'object' ? gen(extra, root, d, depth + 1) : sentence(d, 1, 2);
    }
  return out;
}

function genArray(o: JsonSchema, root: JsonSchema, d: Draws, depth: number): unknown[] {
  const min = typeof o.minItems === 'number' ? o.minItems : 0;
  const maxDefault = depth >= MAX_DEPTH ? min : Math.max(min, 3);
  const max = typeof o.maxItems === 'number' ? Math.min(o.maxItems, Math.max(min, 8)) : maxDefault;
  const n = d.int(Math.max(min, depth >= MAX_DEPTH ? min : Math.min(1, max)), Math.max(min, max));
  const items = Array.isArray(o.items) ? undefined : o.items;
  const out: unknown[] = [];
  const seen = new Set<string>();
  for (let tries = 0; out.length < n && tries < n * 8; tries++) {
    const v = gen(items, root, d, depth + 1);
    if (o.uniqueItems === true) {
      const key = JSON.stringify(v);
      if (seen.has(key)) continue;
      seen.add(key);
    }
    out.push(v);
  }
  return out;
}

function bounds(o: JsonSchema, integer: boolean): [number, number] {
  let lo = typeof o.minimum === 'number' ? o.minimum : undefined;
  let hi = typeof o.maximum === 'number' ? o.maximum : undefined;
  const step = integer ? 1 : 0.01;
  if (typeof o.exclusiveMinimum === 'number') lo = Math.max(lo ?? -Infinity, o.exclusiveMinimum + step);
  if (typeof o.exclusiveMaximum === 'number') hi = Math.min(hi ?? Infinity, o.exclusiveMaximum - step);
  if (lo === undefined && hi === undefined) return [0, 100];
  if (lo === undefined) return [(hi as number) - 100, hi as number];
  if (hi === undefined) return [lo, lo + 100];
  return [lo, hi];
}

function genInteger(o: JsonSchema, d: Draws): number {
  let [lo, hi] = bounds(o, true);
  lo = Math.ceil(lo);
  hi = Math.floor(hi);
  const m =
    typeof o.multipleOf === 'number' && Number.isInteger(o.multipleOf) && o.multipleOf > 0 ? o.multipleOf : 1;
  const first = Math.ceil(lo / m);
  const last = Math.floor(hi / m);
  return (last >= first ? first + (d.u32() % (last - first + 1)) : first) * m;
}

function genNumber(o: JsonSchema, d: Draws): number {
  if (typeof o.multipleOf === 'number') return genInteger(o, d);
  const [lo, hi] = bounds(o, false);
  const v = lo + (d.u32() / 4294967296) * (hi - lo);
  // Two decimals read as a model would write them; clamp the rounding back inside the bounds.
  const r = Math.round(v * 100) / 100;
  return Math.min(hi, Math.max(lo, r));
}

function genString(o: JsonSchema, d: Draws): string {
  const fmt = o.format;
  const n = () => d.int(1, 28);
  switch (fmt) {
    case 'date':
      return `20${String(d.int(10, 29))}-${String(d.int(1, 12)).padStart(2, '0')}-${String(n()).padStart(2, '0')}`;
    case 'date-time':
      return `20${String(d.int(10, 29))}-${String(d.int(1, 12)).padStart(2, '0')}-${String(n()).padStart(2, '0')}T${String(d.int(0, 23)).padStart(2, '0')}:${String(d.int(0, 59)).padStart(2, '0')}:00Z`;
    case 'time':
      return `${String(d.int(0, 23)).padStart(2, '0')}:${String(d.int(0, 59)).padStart(2, '0')}:00Z`;
    case 'email':
      return `${d.word()}.${d.word()}@example.com`;
    case 'uri':
      return `https://example.com/${d.word()}`;
    case 'uuid': {
      const h = () => d.u32().toString(16).padStart(8, '0');
      const x = h() + h() + h() + h();
      return `${x.slice(0, 8)}-${x.slice(8, 12)}-4${x.slice(13, 16)}-a${x.slice(17, 20)}-${x.slice(20, 32)}`;
    }
  }
  const minLen = typeof o.minLength === 'number' ? o.minLength : 0;
  const maxLen = typeof o.maxLength === 'number' ? o.maxLength : Infinity;
  let s = sentence(d, 1, 4);
  while (s.length < minLen) s += ` ${d.word()}`;
  if (s.length > maxLen) s = s.slice(0, maxLen);
  return s;
}
