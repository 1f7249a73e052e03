// The desktop app's SVG render children (main/render-launcher.ts): utility processes the conversion pool drives and
// kills like its Node children. On plain Node, through a stand-in for Electron's utilityProcess
// (test/helpers/utility-process.ts); the real one is driven in test/main/electron.test.ts where Electron exists.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { renderEnv, RENDER_SERVICE_NAME, utilityRenderLauncher } from '../../main/render-launcher.ts';
import { DEFAULT_RULES, defaultTemplate, IMAGE_LIMITS } from '../../server/convert/index.ts';
import { ConvertPool } from '../../server/convert-pool/pool.ts';
import { renderChildEntry, WARM_CHILD_CPU_MS } from '../../server/convert-pool/render-child.ts';
import { renderChildRequest } from '../../server/convert-pool/render-launcher.ts';
import { validateDocx } from '../helpers/docx.ts';
import { forkUtility, started } from '../helpers/utility-process.ts';

const NS = 'xmlns="http://www.w3.org/2000/svg"';
const CIRCLE = `<svg ${NS} width="40" height="40"><circle r="20" cx="20" cy="20"/></svg>`;
/** Paths each cut into a million dashes: clean, yet each costs resvg about 0.2 s (test/security/svg-native.test.ts). */
const dashes = (paths: number): string =>
  `<svg ${NS} width="100" height="100">${Array.from(
    { length: paths },
    (_, i) => `<path d="M0 ${String(i % 100)} L100 ${String(i % 100)}" stroke="black" stroke-dasharray="0.0001"/>`,
  ).join('')}</svg>`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether a process runs (a zombie, killed but not yet reaped by its parent, does not). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${String(pid)}/stat`, 'latin1');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
}

/** A process's CPU time (user + system), in ms. */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${String(pid)}/stat`, 'latin1');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function until(check: () => boolean, what: string, ms: number): Promise<void> {
  const end = performance.now() + ms;
  while (!check()) {
    if (performance.now() > end) throw new Error(`waited ${String(ms)} ms for ${what}`);
    await sleep(20);
  }
}

const job = (markdown: string, files: Record<string, string>, signal?: AbortSignal) => ({
  markdown,
  template: { key: 'builtin', bytes: defaultTemplate() },
  mapping: DEFAULT_RULES,
  created: new Date(0),
  images: { files: new Map(Object.entries(files).map(([name, text]) => [name, new TextEncoder().encode(text)])) },
  ...(signal ? { signal } : {}),
});

const launcher = utilityRenderLauncher(forkUtility, renderChildEntry());

afterAll(() => {
  for (const child of started) child.child.kill('SIGKILL');
});

describe('the utilityProcess stand-in follows Electron’s documented API', () => {
  it('has no pid before spawn, passes bytes as a Uint8Array, refuses a standard input, and exits with a code', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'utility-'));
    const echo = join(dir, 'echo.mjs');
    writeFileSync(echo, `process.parentPort.on('message', (e) => process.parentPort.postMessage(e.data));\n`);
    expect(() => forkUtility(echo, [], { stdio: ['pipe', 'ignore', 'ignore'] })).toThrow(/standard input/);
    const child = forkUtility(echo, [], { stdio: 'ignore', serviceName: 'echo' });
    expect(child.pid).toBeUndefined();
    // Sent before it runs: queued, as Electron's parentPort queues messages until a listener is registered.
    child.postMessage(new Uint8Array([1, 2, 3]));
    const spawned = new Promise((done) => child.once('spawn', () => done(undefined)));
    const message = new Promise<unknown>((done) => child.on('message', done));
    await spawned;
    expect(child.pid).toBeGreaterThan(0);
    const echoed = await message;
    expect(echoed).toBeInstanceOf(Uint8Array);
    expect([...(echoed as Uint8Array)]).toEqual([1, 2, 3]);
    const exited = new Promise<number>((done) => child.once('exit', done));
    expect(child.kill()).toBe(true);
    expect(await exited).toBe(128 + 15);
    expect(child.pid).toBeUndefined();
  });
});

describe('main/render-launcher.ts', () => {
  it('starts render-child.mjs as a utility process that answers on its parent port, with nothing of the app’s environment', async () => {
    const child = await launcher.start();
    try {
      const pid = child.pid ?? 0;
      expect(pid).toBeGreaterThan(0);
      expect(started.at(-1)?.serviceName).toBe(RENDER_SERVICE_NAME);
      const answer = new Promise<Uint8Array>((done) => child.onMessage(done));
      child.send(renderChildRequest({ svg: CIRCLE, text: false }));
      const body = Buffer.from(await answer);
      const header = JSON.parse(body.subarray(0, body.indexOf(10)).toString('utf8')) as Record<string, unknown>;
      expect(header).toMatchObject({ ok: true, width: 40, height: 40 });
      expect(body.subarray(body.indexOf(10) + 2, body.indexOf(10) + 5).toString('latin1')).toBe('PNG');
      // Its environment: few malloc arenas, nothing else (no NODE_OPTIONS, no user's variables).
      expect(
        readFileSync(`/proc/${String(pid)}/environ`, 'latin1')
          .split('\0')
          // Less the stand-in's IPC channel (Electron's is Mojo's, outside the environment).
          .filter((entry) => entry !== '' && !entry.startsWith('NODE_CHANNEL_')),
      ).toEqual(['MALLOC_ARENA_MAX=2']);
    } finally {
      child.kill();
    }
  });

  it('keeps only the system folder’s variables of the app’s environment on Windows', () => {
    const env = { SystemRoot: 'C:\\Windows', windir: 'C:\\Windows', PATH: 'C:\\bin', NODE_OPTIONS: '--inspect' };
    expect(renderEnv(env, 'win32')).toEqual({
      MALLOC_ARENA_MAX: '2',
      SystemRoot: 'C:\\Windows',
      windir: 'C:\\Windows',
    });
    expect(renderEnv(env, 'linux')).toEqual({ MALLOC_ARENA_MAX: '2' });
  });

  it.runIf(process.platform === 'linux')(
    'bounds the CPU time of the child’s whole life (prlimit --pid), which no command can wrap',
    async () => {
      const child = await launcher.start();
      try {
        const seconds = Math.ceil(WARM_CHILD_CPU_MS / 1000);
        const limits = readFileSync(`/proc/${String(child.pid)}/limits`, 'latin1');
        expect(limits).toMatch(new RegExp(`Max cpu time\\s+${String(seconds)}\\s+${String(seconds + 1)}\\s+seconds`));
      } finally {
        child.kill();
      }
    },
  );

  it('kills with SIGKILL: a child that ignores SIGTERM (what utilityProcess.kill() sends) still ends at once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'utility-'));
    const stubborn = join(dir, 'stubborn.mjs');
    writeFileSync(stubborn, `process.on('SIGTERM', () => {});\nprocess.parentPort.on('message', () => {});\n`);
    const child = await utilityRenderLauncher(forkUtility, stubborn).start();
    const pid = child.pid ?? 0;
    const exited = new Promise((done) => child.onExit(() => done(undefined)));
    child.kill();
    await exited;
    expect(alive(pid)).toBe(false);
  });

  it('gives the render up when the utility process cannot start: the image is a placeholder, nothing waits', async () => {
    const pool = new ConvertPool({
      size: 1,
      warmUp: false,
      renderLauncher: utilityRenderLauncher(forkUtility, join(mkdtempSync(join(tmpdir(), 'utility-')), 'missing.mjs')),
    });
    try {
      const result = await pool.run(job('![a circle](circle.svg)\n', { 'circle.svg': CIRCLE }));
      expect(result.warnings).toContain('image_unsupported: circle.svg (too complex)');
      expect((await validateDocx(result.docx)).ok).toBe(true);
    } finally {
      await pool.close();
    }
  });
});

describe('the pool with the utility-process launcher', () => {
  it('renders an SVG through a utility process, and keeps it warm for the next', async () => {
    const pool = new ConvertPool({ size: 1, warmUp: false, renderLauncher: launcher });
    const before = started.length;
    try {
      for (let i = 0; i < 2; i++) {
        const result = await pool.run(job('![a circle](circle.svg)\n', { 'circle.svg': CIRCLE }));
        expect(result.warnings).toEqual([]);
        expect((await validateDocx(result.docx)).ok).toBe(true);
      }
      expect(started.length - before).toBe(1);
    } finally {
      await pool.close();
    }
  });

  it('kills a runaway render at the render limit: a placeholder, and the child’s CPU time stops', async () => {
    const pool = new ConvertPool({ size: 1, warmUp: false, renderLauncher: launcher });
    try {
      const result = await pool.run(job('![slow](dashes.svg)\n', { 'dashes.svg': dashes(2_000) }));
      expect(result.warnings).toContain('image_unsupported: dashes.svg (too complex)');
      const child = started.at(-1);
      const pid = child?.child.pid ?? 0;
      await until(() => !alive(pid), 'the render child to end', 2_000);
    } finally {
      await pool.close();
    }
  }, 120_000);

  for (const [how, stop] of [
    ['the conversion is cancelled', (_pool: ConvertPool, controller: AbortController) => controller.abort()],
    ['the pool closes', (pool: ConvertPool) => void pool.close()],
  ] as const) {
    it(`kills the utility process mid-render when ${how}`, async () => {
      const pool = new ConvertPool({ size: 1, warmUp: false, renderLauncher: launcher });
      const controller = new AbortController();
      const before = started.length;
      try {
        const running = pool.run(job('![slow](dashes.svg)\n', { 'dashes.svg': dashes(2_000) }, controller.signal));
        running.catch(() => undefined);
        await until(() => started.length > before && (started.at(-1)?.pid ?? 0) > 0, 'a render child', 60_000);
        const pid = started.at(-1)?.pid ?? 0;
        // Rendering: its CPU time grows.
        await until(() => cpuMs(pid) > 200, 'the render to use CPU time', IMAGE_LIMITS.svgRenderMs * 10);
        stop(pool, controller);
        await expect(running).rejects.toThrow();
        await until(() => !alive(pid), 'the render child to end', 2_000);
      } finally {
        await pool.close();
      }
    }, 120_000);
  }
});
