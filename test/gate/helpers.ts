/**
 * Helpers for the gate tests: simulators started in this process on port 0 (fast time scale,
 * a short context so the context checks stay cheap), the gate run in-process through `main`, and a
 * strict reader of the JUnit XML it writes.
 */
import { after } from 'node:test';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { type SimServer, type SimServerOptions, startSimServer } from '../../src/sim/server/index.js';

/** The simulators' settings: Qwen3 (reasons, so group 7 runs), L = 2048. */
export const SIM = { model: 'qwen3-8b', gpu: 'h100', timeScale: 50, maxModelLen: 2048 } as const;

/** A simulator closed after the test file. */
export async function startGateSim(
  opts: Partial<SimServerOptions> = {},
): Promise<SimServer & { base: string }> {
  const sim = await startSimServer({ ...SIM, ...opts }, { log: () => {} });
  after(() => sim.close());
  return Object.assign(sim, { base: `${sim.url}/v1` });
}

/** `servelab gate ARGS` in this process: exit code, stdout, stderr. */
export async function gate(args: string[], env: Record<string, string> = {}) {
  const io = memoryIo({ LANG: 'C', ...env });
  const code = await main(['gate', ...args], io);
  return { code, out: io.out(), err: io.err() };
}

/** The rows of `--json` output. */
export interface Row {
  id: string;
  status: 'pass' | 'fail' | 'skipped';
  reason?: string;
  new: {
    status: string;
    evidence: { request_id?: string; note: string; sent?: string; received?: string }[];
  };
  old?: { status: string };
}

export function rowsOf(json: string): Row[] {
  return (JSON.parse(json) as { rows: Row[] }).rows;
}

/** An XML element as the strict reader gives it. */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decode(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (whole, e: string) => {
    if (e[0] === '#')
      return String.fromCodePoint(
        e[1] === 'x' || e[1] === 'X' ? Number.parseInt(e.slice(2), 16) : Number(e.slice(1)),
      );
    const v = ENTITIES[e];
    if (v === undefined) throw new Error(`unknown entity ${whole}`);
    return v;
  });
}

/**
 * A strict reader of the XML subset JUnit reports use: a declaration, elements, attributes in
 * double quotes, text, self-closing tags. Any tag mismatch, unquoted attribute, duplicate
 * attribute, raw `<` or `&` in text, or content after the root throws.
 */
export function parseXml(xml: string): XmlElement {
  let i = 0;
  const fail = (m: string) => {
    throw new Error(`XML: ${m} at ${i}: ${JSON.stringify(xml.slice(i, i + 40))}`);
  };
  const ws = () => {
    while (i < xml.length && /\s/.test(xml[i])) i++;
  };
  if (xml.startsWith('<?xml')) {
    const end = xml.indexOf('?>');
    if (end < 0) fail('unterminated declaration');
    i = end + 2;
  }
  ws();
  const name = () => {
    const m = /^[A-Za-z_][\w.-]*/.exec(xml.slice(i));
    if (!m) fail('expected a name');
    i += (m as RegExpExecArray)[0].length;
    return (m as RegExpExecArray)[0];
  };
  const element = (): XmlElement => {
    if (xml[i] !== '<') fail('expected <');
    i++;
    const el: XmlElement = { name: name(), attrs: {}, children: [], text: '' };
    for (;;) {
      ws();
      if (xml.startsWith('/>', i)) {
        i += 2;
        return el;
      }
      if (xml[i] === '>') {
        i++;
        break;
      }
      const a = name();
      if (a in el.attrs) fail(`duplicate attribute ${a}`);
      ws();
      if (xml[i] !== '=') fail('expected =');
      i++;
      ws();
      if (xml[i] !== '"') fail('expected "');
      const end = xml.indexOf('"', i + 1);
      if (end < 0) fail('unterminated attribute');
      const raw = xml.slice(i + 1, end);
      if (/[<]/.test(raw) || /&(?!(#x[0-9a-f]+|#\d+|\w+);)/i.test(raw)) fail('raw < or & in an attribute');
      el.attrs[a] = decode(raw);
      i = end + 1;
    }
    for (;;) {
      const lt = xml.indexOf('<', i);
      if (lt < 0) fail('unterminated element');
      const text = xml.slice(i, lt);
      if (/&(?!(#x[0-9a-f]+|#\d+|\w+);)/i.test(text)) fail('raw & in text');
      el.text += decode(text);
      i = lt;
      if (xml.startsWith('</', i)) {
        i += 2;
        const close = name();
        if (close !== el.name) fail(`</${close}> closes <${el.name}>`);
        ws();
        if (xml[i] !== '>') fail('expected >');
        i++;
        return el;
      }
      el.children.push(element());
    }
  };
  const root = element();
  ws();
  if (i !== xml.length) fail('content after the root element');
  return root;
}
