// SVGs whose rendering has no bound in native code (resvg), and images nested in SVGs past the pixel cap. The engine
// refuses nested data: SVGs and nested bitmaps over the cap (naming the image), and renders every SVG in a child
// process the conversion's owner kills (a time limit, a cancel, an ended worker), within a memory bound: after any
// answer the server's CPU time stops growing, and its memory stays bounded, whatever the SVG.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { unzipSync } from 'fflate';
import { FormData, request, type Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convert, filesSource } from '../../server/convert/index.ts';
import { IMAGE_LIMITS } from '../../server/convert/images/limits.ts';
import { cleanSvg } from '../../server/convert/images/svg.ts';
import { renderInChild } from '../../server/convert-pool/render-child.ts';
import { BUILTIN_MAPPING_ID, BUILTIN_TEMPLATE_ID } from '../../server/store/store.ts';
import { DESKTOP_SERVER } from '../helpers/desktop-server.ts';
import { killAllChildren, runCli, startServe, trustingAgent, type ServeProcess } from '../helpers/docwright-process.ts';
import { validateDocx } from '../helpers/docx.ts';

const NS = 'xmlns="http://www.w3.org/2000/svg"';
const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
const base64 = (bytes: Uint8Array | string): string => Buffer.from(bytes).toString('base64');

/** The issue's 462-byte SVG: a nested data: SVG whose filter (dilate and blur of radius 300) rendered for minutes. */
const NESTED_HOSTILE = `<svg ${NS} width="2000" height="2000"><image width="2000" height="2000" href="data:image/svg+xml;base64,${base64(
  `<svg ${NS} width="2000" height="2000"><filter id="f"><feMorphology operator="dilate" radius="300"/><feGaussianBlur stdDeviation="300"/></filter><rect width="2000" height="2000" filter="url(#f)"/></svg>`,
)}"/></svg>`;

/** A PNG of one-bit grey, all black: WIDTH × HEIGHT pixels in a few kilobytes (a decompression bomb when large). */
function blackPng(width: number, height: number): Uint8Array {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (bytes: Buffer): number => {
    let c = 0xffffffff;
    for (const b of bytes) c = (crcTable[(c ^ b) & 0xff] ?? 0) ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer): Buffer => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(8 + data.length + 4);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc(body), 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 1; // bit depth
  header[9] = 0; // greyscale
  const raw = Buffer.alloc(height * (1 + Math.ceil(width / 8)));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** An SVG showing one PNG through a data: URI. */
const svgAround = (png: Uint8Array): string =>
  `<svg ${NS} width="400" height="400"><rect width="400" height="400" fill="red"/><image width="400" height="400" href="data:image/png;base64,${base64(png)}"/></svg>`;

/** Paths each cut into a million dashes: clean (no filter, mask or pattern), yet each costs resvg about 0.2 s. */
const dashes = (paths: number): string =>
  `<svg ${NS} width="100" height="100">${Array.from(
    { length: paths },
    (_, i) => `<path d="M0 ${String(i % 100)} L100 ${String(i % 100)}" stroke="black" stroke-dasharray="0.0001"/>`,
  ).join('')}</svg>`;

/** The pixels of every bitmap in a .docx: its media files and the data: images inside its SVG parts, at any depth. */
function bitmapSizes(docx: Uint8Array): { where: string; pixels: number }[] {
  const sizes: { where: string; pixels: number }[] = [];
  const visit = (where: string, bytes: Uint8Array): void => {
    const text = Buffer.from(bytes);
    if (text.subarray(1, 4).toString('latin1') === 'PNG')
      sizes.push({ where, pixels: text.readUInt32BE(16) * text.readUInt32BE(20) });
    const svg = text.toString('utf8');
    for (const match of svg.matchAll(/data:([^;,"']*)(;base64)?,([^"']*)/g)) {
      const payload = match[3] ?? '';
      visit(
        `${where} > ${match[1] ?? ''}`,
        match[2] ? Buffer.from(payload, 'base64') : utf8(decodeURIComponent(payload)),
      );
    }
  };
  for (const [name, bytes] of Object.entries(unzipSync(docx))) if (name.startsWith('word/media/')) visit(name, bytes);
  return sizes;
}

/** CPU time of this process's ended, waited-for children (cutime + cstime), in ms. */
function childrenCpuMs(): number {
  const stat = readFileSync('/proc/self/stat', 'latin1');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

async function convertOne(name: string, svg: string): Promise<{ warnings: string[]; docx: Uint8Array; ms: number }> {
  const started = performance.now();
  // In a child per SVG, as a worker without a pool does (the engine starts no process of its own).
  const result = await convert({
    markdown: `![a picture](${name})\n`,
    images: filesSource(new Map([[name, utf8(svg)]])),
    renderer: renderInChild,
  });
  return { warnings: result.warnings, docx: result.docx, ms: performance.now() - started };
}

describe('images nested in an SVG', () => {
  it('refuses a data: SVG inside an SVG (its filter rendered for minutes), naming the image', async () => {
    const { warnings, docx, ms } = await convertOne('nested.svg', NESTED_HOSTILE);
    expect(warnings).toContain('image_unsupported: nested.svg (an SVG image inside it)');
    expect(ms).toBeLessThan(5_000);
    expect((await validateDocx(docx)).ok).toBe(true);
  });

  it('refuses an SVG whose nested bitmap is over the pixel cap; no stored part carries one', async () => {
    const { warnings, docx } = await convertOne('big.svg', svgAround(blackPng(8_000, 8_000)));
    expect(warnings).toContain('image_unsupported: big.svg (an image inside it: png 8000×8000)');
    expect(bitmapSizes(docx).filter((s) => s.pixels > IMAGE_LIMITS.maxPixels)).toEqual([]);
    expect((await validateDocx(docx)).ok).toBe(true);
  });

  it('keeps a nested bitmap within the cap, and renders the fallback', async () => {
    const { warnings, docx } = await convertOne('small.svg', svgAround(blackPng(40, 40)));
    expect(warnings).toEqual([]);
    const sizes = bitmapSizes(docx);
    expect(sizes.some((s) => s.where.includes('.svg > image/png') && s.pixels === 1_600)).toBe(true);
    expect(sizes.some((s) => s.where.endsWith('.png'))).toBe(true);
    expect((await validateDocx(docx)).ok).toBe(true);
  });

  it('renders a clean but slow SVG (millions of dashes) within the render limit, as a placeholder', async () => {
    const children = childrenCpuMs();
    const { warnings, docx } = await convertOne('dashes.svg', dashes(400));
    expect(warnings).toContain('image_unsupported: dashes.svg (too complex)');
    // The render ran in a child process (this process's waited-for children), stopped at its CPU time limit.
    expect(childrenCpuMs() - children).toBeGreaterThan(IMAGE_LIMITS.svgRenderMs / 2);
    expect(childrenCpuMs() - children).toBeLessThan(IMAGE_LIMITS.svgRenderMs + 2_000);
    expect((await validateDocx(docx)).ok).toBe(true);
  }, 120_000);
});

/** A GIF whose screen is SCREEN × SCREEN pixels and whose one frame is FRAME × FRAME (35 bytes: one LZW code). */
function gif(screen: number, frame: number): Uint8Array {
  const out = Buffer.from([
    ...Buffer.from('GIF89a', 'latin1'),
    ...[screen & 0xff, screen >> 8, screen & 0xff, screen >> 8, 0x80, 0, 0], // screen, a 2-colour table
    ...[0, 0, 0, 0xff, 0xff, 0xff],
    ...[0x2c, 0, 0, 0, 0, frame & 0xff, frame >> 8, frame & 0xff, frame >> 8, 0], // the frame at 0,0
    ...[2, 2, 0x44, 0x01, 0, 0x3b], // LZW minimum code size, one sub-block, its end, the trailer
  ]);
  return new Uint8Array(out);
}

/** An SVG whose one image's data: URI is in attribute ATTR (declared namespaces: xlink, s = SVG, o = another). */
const svgWithHref = (attr: string, uri: string, element = 'image'): string =>
  `<svg ${NS} xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:s="http://www.w3.org/2000/svg" xmlns:o="urn:other" width="200" height="200"><defs><pattern id="p" width="10" height="10"><${element} width="10" height="10" ${attr}="${uri}"/></pattern></defs><rect width="200" height="200" fill="url(#p)"/><circle r="50" cx="100" cy="100" fill="red"/></svg>`;
const pngUri = (png: Uint8Array): string => `data:image/png;base64,${base64(png)}`;
const svgUri = (svg: string): string => `data:image/svg+xml;base64,${base64(svg)}`;
/** The nested filter of the issue's hostile SVG, as a data: URI. */
const HOSTILE_URI = svgUri(
  `<svg ${NS} width="2000" height="2000"><filter id="f"><feMorphology operator="dilate" radius="300"/><feGaussianBlur stdDeviation="300"/></filter><rect width="2000" height="2000" filter="url(#f)"/></svg>`,
);

describe('hrefs and effects in any namespace the renderer reads', () => {
  const over = blackPng(8_000, 8_000);
  const overWarning = (name: string) => `image_unsupported: ${name} (an image inside it: png 8000×8000)`;

  for (const attr of ['xml:href', 's:href', 'o:href']) {
    it(`checks a nested bitmap in ${attr} (in a pattern) against the pixel cap`, async () => {
      const { warnings, docx } = await convertOne('ns.svg', svgWithHref(attr, pngUri(over)));
      expect(warnings).toContain(overWarning('ns.svg'));
      expect(bitmapSizes(docx).filter((s) => s.pixels > IMAGE_LIMITS.maxPixels)).toEqual([]);
      expect((await validateDocx(docx)).ok).toBe(true);
    });
  }

  it('refuses a nested SVG in xml:href or s:href', async () => {
    for (const attr of ['xml:href', 's:href']) {
      const { warnings, docx, ms } = await convertOne('ns.svg', svgWithHref(attr, HOSTILE_URI));
      expect(warnings).toContain('image_unsupported: ns.svg (an SVG image inside it)');
      expect(ms).toBeLessThan(5_000);
      expect((await validateDocx(docx)).ok).toBe(true);
    }
  });

  it('checks an xlink:href whose prefix a child binds to the SVG namespace, and an svg:image element', async () => {
    const rebound = `<svg ${NS} width="10" height="10"><g xmlns:xlink="http://www.w3.org/2000/svg"><image width="10" height="10" xlink:href="${pngUri(over)}"/></g></svg>`;
    const prefixed = `<svg ${NS} xmlns:svg="http://www.w3.org/2000/svg" width="10" height="10"><svg:g><svg:image width="10" height="10" href="${pngUri(over)}"/></svg:g></svg>`;
    const defaulted = `<svg ${NS} width="10" height="10"><o:g xmlns:o="urn:other" xmlns="urn:other"><image xmlns="http://www.w3.org/2000/svg" width="10" height="10" xml:href="${pngUri(over)}"/></o:g></svg>`;
    for (const [name, svg] of [
      ['rebound.svg', rebound],
      ['prefixed.svg', prefixed],
      ['defaulted.svg', defaulted],
    ] as const) {
      const { warnings, docx } = await convertOne(name, svg);
      expect(warnings).toContain(overWarning(name));
      expect(bitmapSizes(docx).filter((s) => s.pixels > IMAGE_LIMITS.maxPixels)).toEqual([]);
    }
  });

  it('keeps a small nested bitmap in xml:href out of the stored SVG (browsers ignore it), with no warning', async () => {
    const { warnings, docx } = await convertOne('small.svg', svgWithHref('xml:href', pngUri(blackPng(40, 40))));
    expect(warnings).toEqual([]);
    const svgPart = Object.entries(unzipSync(docx)).find(([name]) => name.endsWith('.svg'));
    expect(svgPart && Buffer.from(svgPart[1]).toString('utf8')).not.toMatch(/xml:href/);
    expect((await validateDocx(docx)).ok).toBe(true);
  });

  it('draws no filter given as s:filter, xlink:filter, xml:filter or s:style (the renderer reads the first three)', () => {
    for (const attr of ['s:filter', 'xlink:filter', 'xml:filter', 's:mask', 's:style']) {
      const value = attr === 's:style' ? 'filter:url(#f)' : 'url(#f)';
      const svg = `<svg ${NS} xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:s="http://www.w3.org/2000/svg" width="20" height="20"><filter id="f"><feFlood flood-color="red"/></filter><rect width="10" height="10" ${attr}="${value}"/></svg>`;
      const cleaned = cleanSvg(utf8(svg));
      expect(cleaned.ok).toBe(true);
      // The renderer's copy has neither the filter nor anything pointing at one.
      if (cleaned.ok) expect(cleaned.render, attr).not.toMatch(/filter|mask/);
    }
  });
});

describe('GIF frames', () => {
  it('refuses a GIF whose frame is larger than its screen, on its own and inside an SVG', async () => {
    const big = gif(1, 20_000);
    const alone = await convert({ markdown: '![a](frame.gif)\n', images: filesSource(new Map([['frame.gif', big]])) });
    expect(alone.warnings).toContain('image_unsupported: frame.gif (gif 1×1 with a 20000×20000 frame)');
    expect((await validateDocx(alone.docx)).ok).toBe(true);
    const nested = await convertOne(
      'frame.svg',
      `<svg ${NS} width="10" height="10"><image width="10" height="10" href="data:image/gif;base64,${base64(big)}"/></svg>`,
    );
    expect(nested.warnings).toContain(
      'image_unsupported: frame.svg (an image inside it: gif 1×1 with a 20000×20000 frame)',
    );
  });

  it('keeps a GIF whose frame fits its screen', async () => {
    const { warnings } = await convert({
      markdown: '![a](ok.gif)\n',
      images: filesSource(new Map([['ok.gif', gif(20, 20)]])),
    });
    expect(warnings).toEqual([]);
  });
});

/** Processes by pid: their parent and their CPU time (user and system, their waited-for children's included), in ms. */
function processes(): Map<number, { parent: number; cpuMs: number }> {
  const found = new Map<number, { parent: number; cpuMs: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
      found.set(Number(entry), { parent: Number(fields[1]), cpuMs: ticks * 10 });
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** A process and its descendants. */
function tree(root: number): number[] {
  const all = processes();
  const pids = [root];
  for (let i = 0; i < pids.length; i++)
    for (const [pid, { parent }] of all) if (parent === pids[i] && !pids.includes(pid)) pids.push(pid);
  return pids;
}

/** The CPU time of a process and its descendants, living and ended, in ms. */
function treeCpuMs(root: number): number {
  const all = processes();
  return tree(root).reduce((sum, pid) => sum + (all.get(pid)?.cpuMs ?? 0), 0);
}

/** The highest resident memory any process of the tree has had (VmHWM), in bytes. */
function treePeakRss(root: number): number {
  let peak = 0;
  for (const pid of tree(root)) {
    try {
      const kb = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${String(pid)}/status`, 'latin1'))?.[1];
      peak = Math.max(peak, Number(kb ?? 0) * 1024);
    } catch {
      // Gone meanwhile.
    }
  }
  return peak;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The threads of a process tree that are running or waiting for a core ('R'), by "pid/tid". */
function runningThreads(root: number): string[] {
  const running: string[] = [];
  for (const pid of tree(root)) {
    let tids: string[];
    try {
      tids = readdirSync(`/proc/${String(pid)}/task`);
    } catch {
      continue;
    }
    for (const tid of tids) {
      try {
        const stat = readFileSync(`/proc/${String(pid)}/task/${tid}/stat`, 'latin1');
        if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('R'))
          running.push(`${String(pid)}/${tid} ${stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))}`);
      } catch {
        // Gone meanwhile.
      }
    }
  }
  return running;
}

/**
 * What the server's tree still does 2 s after an answer, over the next 2 s: its CPU time, and the threads that were
 * running or runnable in more than half of 20 looks. On a loaded machine a thread left rendering at a low priority
 * may get little CPU time, but it is always runnable; an idle server's threads sleep.
 */
async function workAfterAnswer(pid: number): Promise<{ cpuMs: number; busyThreads: string[] }> {
  await sleep(2_000);
  const before = treeCpuMs(pid);
  const seen = new Map<string, number>();
  for (let i = 0; i < 20; i++) {
    for (const thread of runningThreads(pid)) seen.set(thread, (seen.get(thread) ?? 0) + 1);
    await sleep(100);
  }
  return {
    cpuMs: treeCpuMs(pid) - before,
    busyThreads: [...seen].filter(([, count]) => count > 10).map(([thread]) => thread),
  };
}

/** Nothing keeps working: no thread busy, and less CPU time than an idle server's timers and collections use. */
async function expectIdle(pid: number): Promise<void> {
  const { cpuMs, busyThreads } = await workAfterAnswer(pid);
  expect(busyThreads).toEqual([]);
  expect(cpuMs).toBeLessThan(300);
}

interface Server {
  process: ServeProcess;
  agent: Agent;
  auth: Record<string, string>;
  dir: string;
}

async function serve(env: Record<string, string>, entry?: string[]): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), 'dw-svg-native-'));
  const server = await startServe(['--data-dir', dir], {
    env: { ...process.env, ...env },
    ...(entry ? { entry } : {}),
  });
  const created = await runCli(['keys', 'create', 'svg', '--data-dir', dir]);
  expect(created.code, created.stderr).toBe(0);
  return {
    process: server,
    agent: trustingAgent(join(dir, 'tls', 'localhost-cert.pem')),
    auth: { authorization: `Bearer ${created.stdout.trim()}` },
    dir,
  };
}

/** POST /api/v1/convert with one image beside the markdown; the status, warnings and body. */
async function convertThrough(
  server: Server,
  name: string,
  svg: string,
  signal?: AbortSignal,
): Promise<{ status: number; warnings: string[]; body: Buffer }> {
  const form = new FormData();
  form.append('markdown', `![a picture](${name})\n`);
  form.append('template_id', BUILTIN_TEMPLATE_ID);
  form.append('mapping_id', BUILTIN_MAPPING_ID);
  form.append('images', new Blob([svg], { type: 'image/svg+xml' }), name);
  const res = await request(`${server.process.url}/api/v1/convert`, {
    method: 'POST',
    body: form,
    headers: server.auth,
    dispatcher: server.agent,
    ...(signal ? { signal } : {}),
  });
  const body = Buffer.from(await res.body.arrayBuffer());
  const header = res.headers['x-warnings'];
  const warnings = typeof header === 'string' ? (JSON.parse(header) as string[]) : [];
  return { status: res.statusCode, warnings, body };
}

const servers: Server[] = [];
afterAll(async () => {
  await killAllChildren();
  for (const server of servers) rmSync(server.dir, { recursive: true, force: true });
});

/** The command lines of a process tree's SVG render children (render-child.mjs, or its build). */
function renderChildren(root: number): string[] {
  const lines: string[] = [];
  for (const pid of tree(root).slice(1)) {
    try {
      const line = readFileSync(`/proc/${String(pid)}/cmdline`, 'utf8')
        .split('\0')
        .join(' ');
      if (/render-child/.test(line)) lines.push(line);
    } catch {
      // Gone meanwhile.
    }
  }
  return lines;
}

// The same server two ways: `docwright serve` (render children are Node child processes under prlimit), and the
// desktop app's (main/main.ts's startServer with main/render-launcher.ts: utility processes, here the stand-in).
describe.each([
  { kind: 'docwright serve', entry: undefined, utility: false },
  { kind: "the desktop app's server (render children as utility processes)", entry: DESKTOP_SERVER, utility: true },
])('native rendering on a real server, $kind: nothing keeps working after the answer', ({ entry, utility }) => {
  let limited: Server;
  let plain: Server;
  beforeAll(async () => {
    // A conversion time limit below the render limit: the job's limit ends the render (422).
    limited = await serve({ DOCWRIGHT_CONVERT_TIMEOUT_MS: '2000', DOCWRIGHT_WORKERS: '1' }, entry);
    plain = await serve({ DOCWRIGHT_WORKERS: '1' }, entry);
    servers.push(limited, plain);
  }, 60_000);

  it('answers the nested hostile SVG at once, and nothing keeps rendering it', async () => {
    const answer = await convertThrough(plain, 'nested.svg', NESTED_HOSTILE);
    expect(answer.status).toBe(200);
    expect(answer.warnings).toContain('image_unsupported: nested.svg (an SVG image inside it)');
    expect((await validateDocx(new Uint8Array(answer.body))).ok).toBe(true);
    await expectIdle(plain.process.pid);
  }, 60_000);

  it('a render past the conversion time limit: 422, and its CPU time stops within 2 s', async () => {
    const answer = await convertThrough(limited, 'dashes.svg', dashes(2_000));
    expect(answer.status).toBe(422);
    await expectIdle(limited.process.pid);
  }, 60_000);

  it('a render past the render limit: a placeholder, and its CPU time stops within 2 s', async () => {
    const answer = await convertThrough(plain, 'dashes.svg', dashes(2_000));
    expect(answer.status).toBe(200);
    expect(answer.warnings).toContain('image_unsupported: dashes.svg (too complex)');
    await expectIdle(plain.process.pid);
  }, 120_000);

  it('a cancelled conversion (the client goes away mid-render): its CPU time stops within 2 s', async () => {
    const controller = new AbortController();
    const answer = convertThrough(plain, 'dashes.svg', dashes(2_000), controller.signal);
    await sleep(1_000);
    controller.abort();
    await expect(answer).rejects.toThrow();
    await expectIdle(plain.process.pid);
  }, 60_000);

  it('a 20000×20000 PNG inside an SVG: refused by name, memory bounded, nothing stored past the cap', async () => {
    const answer = await convertThrough(plain, 'huge.svg', svgAround(blackPng(20_000, 20_000)));
    expect(answer.status).toBe(200);
    expect(answer.warnings).toContain('image_unsupported: huge.svg (an image inside it: png 20000×20000)');
    const docx = new Uint8Array(answer.body);
    expect(bitmapSizes(docx).filter((s) => s.pixels > IMAGE_LIMITS.maxPixels)).toEqual([]);
    expect((await validateDocx(docx)).ok).toBe(true);
    await expectIdle(plain.process.pid);
    expect(treePeakRss(plain.process.pid)).toBeLessThan(1.5e9);
  }, 60_000);

  it('a 20000×20000 PNG in xml:href inside a pattern: refused by name, memory bounded, nothing stored past the cap', async () => {
    const answer = await convertThrough(plain, 'xml.svg', svgWithHref('xml:href', pngUri(blackPng(20_000, 20_000))));
    expect(answer.status).toBe(200);
    expect(answer.warnings).toContain('image_unsupported: xml.svg (an image inside it: png 20000×20000)');
    const docx = new Uint8Array(answer.body);
    expect(bitmapSizes(docx).filter((s) => s.pixels > IMAGE_LIMITS.maxPixels)).toEqual([]);
    expect((await validateDocx(docx)).ok).toBe(true);
    await expectIdle(plain.process.pid);
    expect(treePeakRss(plain.process.pid)).toBeLessThan(1.5e9);
  }, 60_000);

  it('a nested bitmap just within the cap renders, with the server and the renderer under 1.5 GB', async () => {
    // 7,745 × 7,745 = 59.98 megapixels: the most a nested bitmap may have.
    const answer = await convertThrough(plain, 'within.svg', svgAround(blackPng(7_745, 7_745)));
    expect(answer.status).toBe(200);
    expect(answer.warnings, plain.process.stderr()).toEqual([]);
    // Rendered by the server's warm render child, of the kind its launcher starts.
    const children = renderChildren(plain.process.pid);
    expect(children).toHaveLength(1);
    expect(children.every((line) => line.includes('utility-parent-port'))).toBe(utility);
    expect(treePeakRss(plain.process.pid)).toBeLessThan(1.5e9);
    await expectIdle(plain.process.pid);
  }, 60_000);
});
