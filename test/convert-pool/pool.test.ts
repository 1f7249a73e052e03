// The conversion pool with real worker threads: conversions never hold up the server's other requests, a
// conversion past the time or memory limit ends with a clean 422 and its quota reservation released, a dead worker
// fails only its own conversion, and the built bundle's worker entry works as the sources' does.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, watch } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generateMarkdown } from '../../bench/generate.ts';
import { DEFAULT_RULES, defaultTemplate } from '../../server/convert/index.ts';
import {
  ConvertBusyError,
  ConvertLimitError,
  ConvertPool,
  ConvertStorageError,
  type PoolOptions,
} from '../../server/convert-pool/pool.ts';
import { buildApp } from '../../server/app.ts';
import { startServer } from '../../server/serve.ts';
import { Services, TEMPLATES_CACHED } from '../../server/services.ts';
import { BUILTIN_MAPPING_ID, BUILTIN_TEMPLATE_ID, Store } from '../../server/store/store.ts';
import { call, type HttpResult } from '../helpers/docwright-process.ts';
import { fixture, validateDocx } from '../helpers/docx.ts';
import { manyStyles, partText, withParts } from '../helpers/hostile-template.ts';

/** One line of nested `- ` items: minutes in the parser (its thematic-break check at every marker). */
const PATHOLOGICAL = `${'- '.repeat(10_000)}x`;
const ROOT = resolve(import.meta.dirname, '../..');

/** A pool job on the built-in template and mapping. */
const BUILTIN = { key: 'builtin', bytes: defaultTemplate() };
const job = (markdown: string, signal?: AbortSignal) => ({
  markdown,
  template: BUILTIN,
  mapping: DEFAULT_RULES,
  created: new Date(0),
  ...(signal ? { signal } : {}),
});

/** This process's threads whose nice value (/proc/self/task/TID/stat, field 19) is `nice`. */
function threadsAtNice(nice: number): number[] {
  return readdirSync('/proc/self/task').flatMap((tid) => {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]) === nice ? [Number(tid)] : [];
    } catch {
      return [];
    }
  });
}

interface Server {
  app: FastifyInstance;
  store: Store;
  base: string;
  key: string;
  convert: (markdown: string, extra?: Record<string, unknown>) => Promise<HttpResult>;
  get: (path: string) => Promise<HttpResult>;
  close: () => Promise<void>;
}

const opened: Server[] = [];

/** The real app on a real loopback port (plain HTTP), a fresh data directory and an API key. */
async function openServer(convert: PoolOptions): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), 'dw-pool-'));
  const store = await Store.open(dir);
  const secret = randomBytes(32);
  const app = await buildApp({ store, secret, convert });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const { key } = await app.services.createApiKey('pool test', secret);
  const auth = { authorization: `Bearer ${key}` };
  const server: Server = {
    app,
    store,
    base,
    key,
    convert: (markdown, extra = {}) =>
      call(undefined, `${base}/api/v1/convert`, {
        method: 'POST',
        headers: auth,
        body: {
          markdown,
          template_id: BUILTIN_TEMPLATE_ID,
          mapping_id: BUILTIN_MAPPING_ID,
          response_format: 'json',
          ...extra,
        },
      }),
    get: (path) => call(undefined, `${base}${path}`, { headers: auth }),
    close: async () => {
      await app.close();
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  opened.push(server);
  return server;
}

/** The pids of the processes whose parent is PID (Linux /proc). */
function childPids(pid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Resolves once `predicate` holds, checking every 10 ms. */
async function until(predicate: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 10));
  }
}

afterEach(async () => {
  for (const server of opened.splice(0)) await server.close();
});

describe('conversions in worker threads', () => {
  it('GETs and other conversions answer while a pathological conversion runs; it ends in 422 document_too_complex without using the quota', async () => {
    const server = await openServer({ size: 2, timeoutMs: 3_000 });
    const pool = server.app.services.convertPool;
    await server.store.updateSettings({ monthly_quota: 2 });
    // Both workers started and warm, so the time limit measures the conversion, not a thread's start.
    pool.warm();
    expect((await Promise.all([server.convert('# warm'), server.convert('warm')])).map((r) => r.status)).toEqual([
      200, 200,
    ]);
    await server.store.updateSettings({ monthly_quota: 4 });

    let slowDone = false;
    const slow = server.convert(PATHOLOGICAL).finally(() => {
      slowDone = true;
    });
    await until(() => pool.load.running === 1, 'the pathological conversion to start');

    const health = await server.get('/api/health');
    expect(health.status).toBe(200);
    const list = await server.get('/api/v1/conversions');
    expect(list.status).toBe(200);
    expect(list.json().total).toBe(2);
    expect(slowDone, 'the GETs answered before the pathological conversion ended').toBe(false);

    const other = await server.convert('# Other\n\nconverted by the second worker');
    expect(other.status, other.bytes.toString()).toBe(200);

    const res = await slow;
    expect(res.status).toBe(422);
    expect(res.json()).toEqual({
      error: {
        code: 'document_too_complex',
        message: expect.stringMatching(/^markdown: .*longer than 3 s.*split the document/),
      },
    });
    // Quota 4: two warm-ups and `other` used 3; the refused one used none, so exactly one more fits.
    expect((await server.convert('one more')).status).toBe(200);
    const spent = await server.convert('over the quota');
    expect(spent.status).toBe(429);
    // After 2 s of CPU it moved to a large conversions' worker (its small one ended), which the limit then ended.
    expect(pool.counters).toMatchObject({ moved: 1, replaced: 2 });
  });

  it('a conversion past the memory limit ends in 422 document_too_complex and the worker is replaced', async () => {
    // 64 MB: the engine run from its sources holds ~34 MB before any document (remark-math's package re-exports
    // micromark-extension-math's HTML side, which loads KaTeX; the bundled dist/ leaves it out), so a smaller limit
    // would stop a fresh worker's first small conversion too. The 300 KB document still needs several times that.
    const server = await openServer({ size: 1, memoryMb: 64, timeoutMs: 60_000 });
    const res = await server.convert(generateMarkdown(300 * 1024));
    expect(res.status).toBe(422);
    expect(res.json().error).toEqual({
      code: 'document_too_complex',
      message: expect.stringMatching(/more than 64 MB of memory/),
    });
    expect(server.store.usage(new Date())).toBe(0);
    const after = await server.convert('# Still converting');
    expect(after.status).toBe(200);
    expect(server.app.services.convertPool.counters).toMatchObject({ started: 2, replaced: 1 });
  });

  it('a worker that dies mid-conversion fails only that conversion (500, quota released); the next one converts', async () => {
    const server = await openServer({ size: 1, timeoutMs: 60_000 });
    const pool = server.app.services.convertPool;
    const dying = server.convert(PATHOLOGICAL);
    await until(() => pool.load.running === 1, 'the conversion to start');
    await Promise.all(pool.workers.map((worker) => worker.terminate()));
    const res = await dying;
    expect(res.status).toBe(500);
    expect(res.json()).toEqual({ error: { code: 'internal_error', message: expect.any(String) } });
    expect(server.store.usage(new Date())).toBe(0);
    expect((await server.get('/api/health')).status).toBe(200);
    const next = await server.convert('# After the crash');
    expect(next.status).toBe(200);
    expect(server.store.usage(new Date())).toBe(1);
  });

  it('with every worker busy and the queue full, a conversion is refused at once: 503 server_busy with Retry-After, no quota used', async () => {
    const server = await openServer({ size: 1, maxQueue: 1, timeoutMs: 1_000 });
    const pool = server.app.services.convertPool;
    const running = server.convert(PATHOLOGICAL);
    await until(() => pool.load.running === 1, 'the first conversion to start');
    const waiting = server.convert(PATHOLOGICAL);
    await until(() => pool.load.queued === 1, 'the second conversion to wait');
    const refused = await server.convert('# One too many');
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.json()).toEqual({ error: { code: 'server_busy', message: expect.stringMatching(/busy/) } });
    expect((await running).status).toBe(422);
    expect((await waiting).status).toBe(422);
    expect(server.store.usage(new Date())).toBe(0);
    expect((await server.convert('# Room again')).status).toBe(200);
  });

  it('each worker reads a template once per version: bytes go to a worker only when it lacks that version', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dw-pool-'));
    const store = await Store.open(dir);
    const services = new Services(store, () => new Date(), { size: 1 });
    try {
      const corporate = fixture('templates', 'corporate.docx');
      const at = new Date().toISOString();
      const template = await store.addTemplate(
        {
          id: '3a3a3a3a-0000-4000-8000-000000000001',
          name: 'Corporate',
          description: '',
          version: 1,
          created_at: at,
          updated_at: at,
        },
        corporate,
      );
      const convert = (templateId: string) =>
        services.convert({
          markdown: '# Title\n\nBody',
          template_id: templateId,
          mapping_id: BUILTIN_MAPPING_ID,
          channel: 'api',
        });
      for (let i = 0; i < 3; i++) await convert(BUILTIN_TEMPLATE_ID);
      for (let i = 0; i < 3; i++) await convert(template.id);
      expect(services.convertPool.counters.templatesSent).toBe(2);
      await store.updateTemplate(template.id, { version: 2, updated_at: new Date().toISOString() }, corporate);
      const { docx } = await convert(template.id);
      await convert(template.id);
      expect(services.convertPool.counters.templatesSent).toBe(3);
      expect((await validateDocx(docx)).ok).toBe(true);
    } finally {
      await services.close();
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the built bundle (dist/)', () => {
  const children: ChildProcess[] = [];
  let home: string;

  beforeAll(async () => {
    // `npm test` builds first (pretest); a lone run builds when the bundle is missing or older than the pool.
    const worker = join(ROOT, 'dist/convert-worker.js');
    if (!existsSync(worker) || statSync(worker).mtimeMs < statSync(join(ROOT, 'server/convert-pool/pool.ts')).mtimeMs) {
      const build = spawn(process.execPath, [join(ROOT, 'scripts/build.mjs')], { cwd: ROOT, stdio: 'ignore' });
      const [code] = (await once(build, 'exit')) as [number | null];
      expect(code).toBe(0);
    }
    home = mkdtempSync(join(tmpdir(), 'dw-pool-dist-'));
  });

  afterAll(async () => {
    for (const child of children) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await once(child, 'exit');
      }
    }
    rmSync(home, { recursive: true, force: true });
  });

  it('dist/cli.js serve converts in dist/convert-worker.js workers, and stops a pathological conversion at the limit', async () => {
    const env = {
      ...process.env,
      DOCWRIGHT_HOME: home,
      DOCWRIGHT_KEYCHAIN: 'off',
      DOCWRIGHT_CONVERT_TIMEOUT_MS: '3000',
      DOCWRIGHT_WORKERS: '2',
    };
    const serve = spawn(process.execPath, [join(ROOT, 'dist/cli.js'), 'serve', '--port', '0', '--http'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(serve);
    let stdout = '';
    const url = await new Promise<string>((done, fail) => {
      serve.stdout?.on('data', (d: Buffer) => {
        stdout += d.toString();
        const m = /Docwright is running at (\S+)/.exec(stdout);
        if (m?.[1]) done(m[1]);
      });
      serve.on('exit', (code) => fail(new Error(`serve exited with ${String(code)}: ${stdout}`)));
    });
    const keys = spawn(process.execPath, [join(ROOT, 'dist/cli.js'), 'keys', 'create', 'dist test'], {
      env,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let key = '';
    keys.stdout?.on('data', (d: Buffer) => (key += d.toString()));
    await once(keys, 'exit');
    key = key.trim();
    expect(key).toMatch(/^dw_/);
    const post = (markdown: string) =>
      call(undefined, `${url}/api/v1/convert`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body: { markdown, template_id: BUILTIN_TEMPLATE_ID, mapping_id: BUILTIN_MAPPING_ID },
      });
    const ok = await post('# From the bundle\n\n- a\n- b');
    expect(ok.status, ok.bytes.toString()).toBe(200);
    expect((await validateDocx(new Uint8Array(ok.bytes))).ok).toBe(true);
    const slow = await post(PATHOLOGICAL);
    expect(slow.status).toBe(422);
    expect(slow.json().error.code).toBe('document_too_complex');
    expect((await post('# Still serving')).status).toBe(200);
  });
});

describe('large conversions and small ones', () => {
  it('large conversions run at most size - 1 at once: a small one sent after two large ones finishes first', async () => {
    const pool = new ConvertPool({ size: 2, largeJobChars: 50_000 });
    try {
      // Both workers started and warm.
      await Promise.all([pool.run(job('# warm')), pool.run(job('# warm'))]);
      const large = generateMarkdown(120 * 1024);
      const finished: string[] = [];
      const track = (name: string, markdown: string) =>
        pool.run(job(markdown)).then((result) => {
          finished.push(name);
          return result;
        });
      const runs = [
        track('large 1', large),
        track('large 2', large),
        track('small', '# Small\n\nNot queued behind the large ones.'),
      ];
      // The second large one waits (one large conversion at a time with two workers); the small one runs at once.
      expect(pool.load).toEqual({ running: 2, queued: 1 });
      const results = await Promise.all(runs);
      expect(finished[0]).toBe('small');
      expect(finished).toHaveLength(3);
      for (const result of results) expect((await validateDocx(result.docx)).ok).toBe(true);
    } finally {
      await pool.close();
    }
  });

  it('small conversions keep every worker while a large one runs, on a worker of its own', async () => {
    const pool = new ConvertPool({ size: 2, largeJobChars: 50_000 });
    try {
      await Promise.all([pool.run(job('# warm')), pool.run(job('# warm'))]);
      const large = pool.run(job(generateMarkdown(120 * 1024)));
      const small = [pool.run(job('# one')), pool.run(job('# two'))];
      // Both small ones run at once beside the large one: none waits for a worker.
      expect(pool.load).toEqual({ running: 3, queued: 0 });
      expect(pool.workers).toHaveLength(3);
      for (const result of [...(await Promise.all(small)), await large])
        expect((await validateDocx(result.docx)).ok).toBe(true);
    } finally {
      await pool.close();
    }
  });

  it.runIf(process.platform === 'linux')(
    'a large conversion runs at a lower CPU priority than small ones',
    async () => {
      const count = (nice: number): number => threadsAtNice(nice).length;
      const before = { small: count(5), large: count(10) };
      const pool = new ConvertPool({ size: 1, largeJobChars: 50_000 });
      try {
        await pool.run(job('# warm'));
        expect(count(5)).toBe(before.small + 1);
        const large = pool.run(job(generateMarkdown(400 * 1024)));
        await until(() => count(10) === before.large + 1, 'the large conversions worker to lower its priority', 20_000);
        expect(count(5)).toBe(before.small + 1);
        await large;
      } finally {
        await pool.close();
      }
    },
  );

  it('with one worker, a large conversion still leaves it to the small ones', async () => {
    const pool = new ConvertPool({ size: 1, largeJobChars: 1_000 });
    try {
      await pool.run(job('# warm'));
      const finished: string[] = [];
      await Promise.all(
        [
          ['large', generateMarkdown(200 * 1024)],
          ['small', '# small'],
        ].map(([name = '', markdown = '']) => pool.run(job(markdown)).then(() => finished.push(name))),
      );
      expect(finished).toEqual(['small', 'large']);
    } finally {
      await pool.close();
    }
  });

  it('a large conversions worker goes when it has had nothing to do for idleMs', async () => {
    const pool = new ConvertPool({ size: 1, largeJobChars: 1_000, idleMs: 1_000 });
    try {
      await pool.run(job('# small'));
      await pool.run(job(generateMarkdown(4 * 1024)));
      expect(pool.counters.started).toBe(2);
      await until(() => pool.workers.length === 0, 'the idle workers to end', 5_000);
      // The next large one starts another.
      expect((await validateDocx((await pool.run(job(generateMarkdown(4 * 1024)))).docx)).ok).toBe(true);
      expect(pool.counters.started).toBe(3);
    } finally {
      await pool.close();
    }
  });
});

describe('workers start when work comes and go when idle', () => {
  it('no worker exists before the first job, and none once every worker has had nothing to do for idleMs', async () => {
    const pool = new ConvertPool({ size: 2, idleMs: 1_000 });
    try {
      expect(pool.workers).toHaveLength(0);
      expect(pool.counters.started).toBe(0);
      await Promise.all([pool.run(job('# one')), pool.run(job('# two'))]);
      expect(pool.counters.started).toBe(2);
      // A worker that keeps converting stays: the idle time counts from its last job.
      await new Promise((done) => setTimeout(done, 600));
      await pool.run(job('# three'));
      const last = Date.now();
      await until(() => pool.workers.length === 0, 'the idle workers to end', 5_000);
      expect(Date.now() - last).toBeGreaterThanOrEqual(900);
      expect(pool.counters.replaced).toBe(0);
      // The next job starts a worker again and converts as before.
      expect((await validateDocx((await pool.run(job('# four'))).docx)).ok).toBe(true);
      expect(pool.counters.started).toBe(3);
    } finally {
      await pool.close();
    }
  });

  it('a worker let go takes its warm render child with it', async () => {
    const pool = new ConvertPool({ size: 1, idleMs: 1_000 });
    try {
      const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>';
      const files = new Map([['dot.svg', new TextEncoder().encode(svg)]]);
      await pool.run({ ...job('![a dot](dot.svg)\n'), images: { files } });
      const children = (): number[] =>
        childPids(process.pid).filter((pid) => readFileSync(`/proc/${String(pid)}/cmdline`, 'utf8').includes('render'));
      expect(children().length).toBeGreaterThanOrEqual(1);
      await until(() => pool.workers.length === 0, 'the idle worker to end', 5_000);
      await until(() => children().length === 0, 'its render child to end', 5_000);
    } finally {
      await pool.close();
    }
  });

  it('a server starts no conversion worker until its first conversion', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dw-pool-serve-'));
    const previous = process.env.DOCWRIGHT_KEYCHAIN;
    process.env.DOCWRIGHT_KEYCHAIN = 'off';
    const server = await startServer({ dataDir: dir, port: 0, http: true });
    try {
      await new Promise((done) => setTimeout(done, 500));
      expect(server.app.services.convertPool.workers).toHaveLength(0);
      expect(server.app.services.convertPool.counters.started).toBe(0);
    } finally {
      await server.close();
      if (previous === undefined) delete process.env.DOCWRIGHT_KEYCHAIN;
      else process.env.DOCWRIGHT_KEYCHAIN = previous;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('no V8 flag flipped at run time', () => {
  it('no file of the server sets V8 flags while it runs (a worker gets what it needs when it is created)', () => {
    const offenders = readdirSync(join(ROOT, 'server'), { recursive: true, encoding: 'utf8' })
      .filter((file) => /\.[cm]?[jt]s$/.test(file))
      .filter((file) => /setFlagsFromString/.test(readFileSync(join(ROOT, 'server', file), 'utf8')));
    expect(offenders).toEqual([]);
  });
});

describe('between conversions', () => {
  /** A pool converting three small documents in a process of its own run with FLAGS: its output (V8's GC trace). */
  async function traced(flags: string[]): Promise<string> {
    const script = `
      const { ConvertPool } = await import(${JSON.stringify(join(ROOT, 'server/convert-pool/pool.ts'))});
      const { DEFAULT_RULES, defaultTemplate } = await import(${JSON.stringify(join(ROOT, 'server/convert/index.ts'))});
      const pool = new ConvertPool({ size: 1 });
      const template = { key: 'builtin', bytes: defaultTemplate() };
      for (let i = 0; i < 3; i++) {
        await pool.run({ markdown: '# Doc ' + i, template, mapping: DEFAULT_RULES, created: new Date(0) });
        await new Promise((done) => setTimeout(done, 200));
        console.log('converted ' + i);
      }
      await pool.close();`;
    const child = spawn(process.execPath, [...flags, '--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const [code] = (await once(child, 'exit')) as [number];
    expect(code, out).toBe(0);
    return out;
  }

  it('a worker collects its young generation once each conversion is answered, where the process runs with --expose-gc', async () => {
    // A collection asked for by code is traced as "testing".
    const out = await traced(['--trace-gc', '--expose-gc']);
    const afterFirst = out.slice(out.indexOf('converted 0'));
    expect(afterFirst.match(/Scavenge[^\n]*testing/g) ?? [], out.slice(-2000)).toHaveLength(2);
    expect(out.slice(0, out.indexOf('converted 0'))).toMatch(/Scavenge[^\n]*testing/);
    // Without the flag nothing is collected by hand, and no flag is switched on to get V8's gc.
    expect(await traced(['--trace-gc'])).not.toMatch(/testing/);
  }, 60_000);
});

describe('the time limit and the queues', () => {
  /**
   * Puts thread `tid` of this process on one CPU with `hogs` busy threads of a child process: while they run, the
   * thread gets at most 1/(hogs + 1) of that CPU, whatever its nice value, the other tests running beside this file
   * or the number of cores (a conversion's share of a crowded machine depends on all three; `taskset` does not).
   * `stop()` ends the hogs and gives the thread back every CPU it had.
   */
  async function crowd(tid: number, hogs = 15): Promise<{ stop: () => Promise<void> }> {
    const allowed = /^Cpus_allowed_list:\s*(\S+)/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? '0';
    const cpu = allowed.split(/[,-]/)[0] ?? '0';
    execFileSync('taskset', ['-p', '-c', cpu, String(tid)], { stdio: 'ignore' });
    const code = `const { Worker } = require('node:worker_threads');
      let up = 0;
      for (let i = 0; i < ${String(hogs)}; i++)
        new Worker('require("node:worker_threads").parentPort.postMessage(1); for (;;) {}', { eval: true })
          .once('message', () => { if (++up === ${String(hogs)}) console.log('ready'); });`;
    const child = spawn('taskset', ['-c', cpu, process.execPath, '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    await until(() => out.includes('ready'), 'the hogs to run', 30_000);
    let stopped = false;
    return {
      stop: async () => {
        if (stopped) return;
        stopped = true;
        const exited = once(child, 'exit');
        child.kill('SIGKILL');
        await exited;
        try {
          execFileSync('taskset', ['-p', '-c', allowed, String(tid)], { stdio: 'ignore' });
        } catch {
          // The thread has ended (its pool closed).
        }
      },
    };
  }

  /** The large conversions' worker of a pool started and warm, and its thread id (the one thread at nice 10). */
  async function warmLargeWorker(pool: ConvertPool): Promise<number> {
    const before = threadsAtNice(10);
    await pool.run(job('# warm'));
    await pool.run(job(generateMarkdown(2 * 1024)));
    const added = threadsAtNice(10).filter((tid) => !before.includes(tid));
    expect(added).toHaveLength(1);
    return added[0] ?? 0;
  }

  it.runIf(process.platform === 'linux')(
    'a conversion slowed down by other work on the cores is not stopped before it has used its time of CPU',
    async () => {
      // About 0.5 s of CPU (1.5 s at most on a slow machine) against a 3 s limit. For its first 5 s it shares one
      // CPU with 15 busy threads (0.3 s of CPU at most), so it outlasts the limit by the clock, then it has the
      // machine again and finishes well before the cap (30 s).
      const pool = new ConvertPool({ size: 1, timeoutMs: 3_000, largeJobChars: 1_000 });
      const markdown = generateMarkdown(180 * 1024);
      let hogs: { stop: () => Promise<void> } | undefined;
      try {
        hogs = await crowd(await warmLargeWorker(pool));
        const started = performance.now();
        const ending = setTimeout(() => void hogs?.stop(), 5_000);
        const result = await pool.run(job(markdown)).finally(() => clearTimeout(ending));
        const took = performance.now() - started;
        expect((await validateDocx(result.docx)).ok).toBe(true);
        // It did wait for the CPU longer than its limit: the clock alone would have stopped it.
        expect(took).toBeGreaterThan(5_000);
        expect(pool.counters.replaced).toBe(0);
      } finally {
        await hogs?.stop();
        await pool.close();
      }
    },
    90_000,
  );

  it.runIf(process.platform === 'linux')(
    'one kept from the cores past ten times its limit by the clock is stopped as busy, not as too complex',
    async () => {
      // A 0.5 s limit, so a 5 s cap: sharing one CPU with 15 busy threads, the conversion gets 0.3 s of CPU at most
      // in that time, below both its limit and the ~1.5 s it needs.
      const pool = new ConvertPool({ size: 1, timeoutMs: 500, largeJobChars: 1_000 });
      let hogs: { stop: () => Promise<void> } | undefined;
      try {
        hogs = await crowd(await warmLargeWorker(pool));
        const started = performance.now();
        const error = await pool.run(job(generateMarkdown(500 * 1024))).catch((e: unknown) => e);
        expect(performance.now() - started).toBeGreaterThanOrEqual(5_000);
        expect(error).toBeInstanceOf(ConvertBusyError);
        expect((error as Error).message).toMatch(/too busy to finish the conversion within 5 s/);
      } finally {
        await hogs?.stop();
        await pool.close();
      }
    },
    60_000,
  );

  it('a short document slow to convert moves to the large conversions workers once it has used its budget', async () => {
    // 20,000 emphasis markers in one paragraph: 20 KB, seconds in the parser (its emphasis resolution grows with the
    // square of the markers). With one worker for the short ones, it would hold that worker for all of it. (16,000 took
    // 3.3 s, short enough that five short conversions on a cold large-conversions worker could end after it.)
    const slow = `${'*_'.repeat(10_000)}a`;
    const pool = new ConvertPool({ size: 1, smallBudgetMs: 300, timeoutMs: 20_000 });
    try {
      await pool.run(job('# warm'));
      const started = performance.now();
      const slowDone = pool.run(job(slow)).then(
        (result) => ({ ok: true as const, result, at: performance.now() - started }),
        (error: unknown) => ({ ok: false as const, error, at: performance.now() - started }),
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      // Short ones sent while it runs: they wait at most for its budget, not for the whole of it.
      const small: number[] = [];
      for (let i = 0; i < 5; i += 1) {
        expect((await validateDocx((await pool.run(job(`# short ${String(i)}`))).docx)).ok).toBe(true);
        small.push(performance.now() - started);
      }
      const outcome = await slowDone;
      // Every short one was answered while the slow one still ran (on the old pool the first waited for all of it).
      expect(Math.max(...small)).toBeLessThan(outcome.at);
      // It converted on a large conversions' worker, within its time limit.
      expect(pool.counters.moved).toBe(1);
      expect(outcome.ok, String(outcome.ok ? '' : outcome.error)).toBe(true);
      if (outcome.ok) expect((await validateDocx(outcome.result.docx)).ok).toBe(true);
    } finally {
      await pool.close();
    }
  }, 120_000);

  it('a template slow to inspect moves to the large conversions workers once it has used its budget', async () => {
    // 9,000 styles and 80,000 paragraphs (within the caps): seconds to read and sanitise, well past the cold start
    // of the worker the short conversion then waits for. Two such uploads held both short-conversion workers of a
    // 2-core server (a 160-byte conversion waited 19.7 s behind them).
    const styled = manyStyles(defaultTemplate(), 9_000);
    const paragraphs = Array.from(
      { length: 80_000 },
      (_, i) => `<w:p><w:r><w:t>${((i * 2654435761) % 4294967296).toString(36)}</w:t></w:r></w:p>`,
    ).join('');
    const heavy = withParts(styled, {
      'word/document.xml': partText(styled, 'word/document.xml').replace('<w:body>', `<w:body>${paragraphs}`),
    });
    const pool = new ConvertPool({ size: 1, smallBudgetMs: 100, timeoutMs: 20_000 });
    try {
      await pool.run(job('# warm'));
      const started = performance.now();
      const inspected = pool.inspect(heavy).then((result) => ({ result, at: performance.now() - started }));
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect((await validateDocx((await pool.run(job('# short'))).docx)).ok).toBe(true);
      const shortAt = performance.now() - started;
      const outcome = await inspected;
      expect(pool.counters.moved).toBe(1);
      expect(shortAt).toBeLessThan(outcome.at);
      expect(outcome.result.styles.length).toBeGreaterThan(9_000);
    } finally {
      await pool.close();
    }
  }, 60_000);

  it('a moved conversion keeps its time limit: what it used before counts', async () => {
    const pool = new ConvertPool({ size: 1, smallBudgetMs: 300, timeoutMs: 1_000 });
    try {
      await pool.run(job('# warm'));
      const error = await pool.run(job(`${'*_'.repeat(8_000)}a`)).catch((e: unknown) => e);
      expect(pool.counters.moved).toBe(1);
      expect(error).toBeInstanceOf(ConvertLimitError);
      expect((error as Error).message).toMatch(/longer than 1 s/);
    } finally {
      await pool.close();
    }
  }, 60_000);

  it('large conversions waiting never fill the queue of the others (and the other way round)', async () => {
    const pool = new ConvertPool({ size: 1, maxQueue: 1, largeJobChars: 1_000 });
    try {
      await pool.run(job('# warm'));
      const large = generateMarkdown(150 * 1024);
      const runs = [pool.run(job(large)), pool.run(job(large)), pool.run(job('# busy'))];
      // One large running, one waiting (its queue is full), one small running.
      expect(pool.load).toEqual({ running: 2, queued: 1 });
      await expect(pool.run(job(large))).rejects.toThrow(/the 1 worker for large conversions is busy and 1 large/);
      // A small one still gets its place in its own queue.
      const small = pool.run(job('# small'));
      expect(pool.load).toEqual({ running: 2, queued: 2 });
      await expect(pool.run(job('# one too many'))).rejects.toThrow(
        /the 1 conversion worker is busy and 1 conversions/,
      );
      for (const result of await Promise.all([...runs, small])) expect(result.docx.byteLength).toBeGreaterThan(0);
    } finally {
      await pool.close();
    }
  }, 60_000);
});

describe('cancelled conversions', () => {
  /** Aborts the job as soon as a worker runs it; resolves to what the caller got. */
  async function cancelWhileRunning(pool: ConvertPool, markdown: string): Promise<unknown> {
    const abort = new AbortController();
    const pending = pool.run(job(markdown, abort.signal)).catch((error: unknown) => error);
    const started = Date.now();
    while (pool.load.running === 0) {
      if (Date.now() - started > 20_000) throw new Error('the conversion never started');
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    abort.abort();
    return pending;
  }
  /** Waits until the pool no longer has the worker; fails with `why` after `limitMs`. */
  async function untilEnded(pool: ConvertPool, worker: unknown, limitMs: number, why: string): Promise<void> {
    const started = Date.now();
    while (pool.workers.some((w) => w === worker)) {
      if (Date.now() - started > limitMs) throw new Error(why);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  it('a cancelled small conversion is answered at once and its warm worker is kept, not ended and restarted cold', async () => {
    const pool = new ConvertPool({ size: 1 });
    try {
      await pool.run(job('# warm'));
      const worker = pool.workers[0];
      const { replaced, started } = pool.counters;
      const error = await cancelWhileRunning(pool, generateMarkdown(60 * 1024));
      expect((error as Error).name).toBe('ConvertCancelledError');
      // The next conversion runs on the same worker, once the cancelled one's result has been dropped.
      const next = await pool.run(job('# next\n\nConverted by the same worker.'));
      expect((await validateDocx(next.docx)).ok).toBe(true);
      expect(pool.workers).toHaveLength(1);
      expect(pool.workers[0]).toBe(worker);
      expect(pool.counters).toMatchObject({ replaced, started });
      expect(pool.load).toEqual({ running: 0, queued: 0 });
    } finally {
      await pool.close();
    }
  });

  it('a cancelled small conversion still running after the grace, and a cancelled large one, end their worker', async () => {
    const pool = new ConvertPool({ size: 1, cancelGraceMs: 50, largeJobChars: 200_000 });
    try {
      await pool.run(job('# warm'));
      // Small (under largeJobChars) but minutes of work: ended when the grace runs out.
      const first = pool.workers[0];
      expect(await cancelWhileRunning(pool, PATHOLOGICAL)).toHaveProperty('name', 'ConvertCancelledError');
      await untilEnded(pool, first, 10_000, 'the worker was not ended');
      expect(pool.counters.replaced).toBe(1);
      // Large: ended at once, whatever the grace.
      await pool.run(job('# warm again'));
      const second = pool.workers[0];
      const large = generateMarkdown(220 * 1024);
      expect(await cancelWhileRunning(pool, large)).toHaveProperty('name', 'ConvertCancelledError');
      // It ran on a worker of its own, which is ended; the small conversions' worker stays.
      expect(pool.workers).toEqual([second]);
      expect(pool.counters.replaced).toBe(2);
      const next = await pool.run(job('# after'));
      expect((await validateDocx(next.docx)).ok).toBe(true);
    } finally {
      await pool.close();
    }
  });

  it('the grace never outlasts the time limit: a conversion cancelled near its limit still ends at the limit', async () => {
    const pool = new ConvertPool({ size: 1, timeoutMs: 1_500, cancelGraceMs: 20_000 });
    try {
      await pool.run(job('# warm'));
      const first = pool.workers[0];
      expect(await cancelWhileRunning(pool, PATHOLOGICAL)).toHaveProperty('name', 'ConvertCancelledError');
      await untilEnded(pool, first, 15_000, 'the worker outlived its time limit');
      expect(pool.counters.replaced).toBe(1);
    } finally {
      await pool.close();
    }
  });
});

/** A pool and a fresh folder for its outputs, both gone afterwards. */
async function withOutputPool(
  options: PoolOptions,
  test: (pool: ConvertPool, dir: string) => Promise<void>,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'dw-pool-output-'));
  const pool = new ConvertPool(options);
  try {
    await test(pool, dir);
  } finally {
    await pool.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the output file (PoolJob.output: the server stores through the worker)', () => {
  /** Its files, temporary ones included, with their sizes. */
  const listing = (dir: string) => Object.fromEntries(readdirSync(dir).map((n) => [n, statSync(join(dir, n)).size]));

  it('is written, whole and alone, before the pool answers; the answer still carries the bytes', async () => {
    await withOutputPool({ size: 1 }, async (pool, dir) => {
      const output = join(dir, 'a.docx');
      const result = await pool.run({ ...job('# Stored\n\nBy the worker.'), output });
      expect(listing(dir)).toEqual({ 'a.docx': result.docx.length });
      expect(new Uint8Array(readFileSync(output))).toEqual(result.docx);
      expect((statSync(output).mode & 0o777).toString(8)).toBe('600');
    });
  });

  it('that cannot be written fails the conversion with ConvertStorageError and its system code; nothing is left; the worker goes on', async () => {
    await withOutputPool({ size: 1 }, async (pool, dir) => {
      await pool.run(job('# warm'));
      const worker = pool.workers[0];
      const error = await pool
        .run({ ...job('# Nowhere'), output: join(dir, 'missing-folder', 'a.docx') })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConvertStorageError);
      expect(error).toHaveProperty('code', 'ENOENT');
      expect(listing(dir)).toEqual({});
      // Not a worker fault: the same warm worker converts the next one, which is stored.
      await pool.run({ ...job('# Next'), output: join(dir, 'b.docx') });
      expect(Object.keys(listing(dir))).toEqual(['b.docx']);
      expect(pool.workers).toEqual([worker]);
      expect(pool.counters.replaced).toBe(0);
    });
  });

  it('of a conversion cancelled while it runs is removed once the worker has written it, whether or not its worker is ended', async () => {
    await withOutputPool({ size: 1, cancelGraceMs: 60_000, largeJobChars: 200_000 }, async (pool, dir) => {
      await pool.run(job('# warm'));
      for (const [name, markdown] of [
        ['small.docx', generateMarkdown(60 * 1024)], // left to finish: its result (and file) dropped
        ['large.docx', generateMarkdown(220 * 1024)], // its worker ended at once
      ] as const) {
        const abort = new AbortController();
        const pending = pool.run({ ...job(markdown, abort.signal), output: join(dir, name) }).catch((e: unknown) => e);
        while (pool.load.running === 0) await new Promise((resolve) => setTimeout(resolve, 1));
        abort.abort();
        expect(await pending).toHaveProperty('name', 'ConvertCancelledError');
        // Once the pool has the worker's answer (or the worker has stopped), the file is gone for good.
        await pool.run(job('# after'));
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(listing(dir), name).toEqual({});
      }
    });
  });
});

describe('an output being written when its worker is ended', () => {
  it('leaves nothing: a large conversion cancelled the moment its temporary file appears (48 MB of images to write)', async () => {
    // Incompressible images, so the worker spends tens of ms writing: the cancel lands while it writes.
    const gif = (): Uint8Array => {
      const bytes = randomBytes(9.5 * 1024 * 1024);
      bytes.write('GIF89a', 0, 'latin1');
      bytes.writeUInt16LE(1000, 6);
      bytes.writeUInt16LE(800, 8);
      bytes[bytes.length - 1] = 0x3b;
      return new Uint8Array(bytes);
    };
    const files = new Map(Array.from({ length: 5 }, (_, i) => [`i${i}.gif`, gif()] as const));
    const markdown = [...files.keys()].map((name) => `![x](${name})`).join('\n\n');
    await withOutputPool({ size: 1, largeJobChars: 10, timeoutMs: 60_000 }, async (pool, dir) => {
      await pool.run({ ...job(markdown), images: { files }, output: join(dir, 'warm.docx') });
      for (let i = 0; i < 3; i++) {
        const abort = new AbortController();
        const watcher = watch(dir, (_event, name) => {
          if (name?.startsWith('.') && !abort.signal.aborted) abort.abort();
        });
        const outcome = await pool
          .run({ ...job(markdown, abort.signal), images: { files }, output: join(dir, `c${i}.docx`) })
          .then(
            () => 'converted',
            (error: unknown) => (error as Error).name,
          );
        watcher.close();
        expect(outcome).toBe('ConvertCancelledError');
        // Once the ended worker has exited, neither its temporary file nor a finished output is left.
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        expect(readdirSync(dir), `run ${i}`).toEqual(['warm.docx']);
      }
    });
  }, 120_000);
});

describe('a conversion moved to the large workers after its first worker stored its output', () => {
  it('leaves no output when it is then cancelled while it waits there', async () => {
    await withOutputPool(
      { size: 1, smallBudgetMs: 50, timeoutMs: 60_000, largeJobChars: 150_000 },
      async (pool, dir) => {
        await pool.run(job('# warm'));
        // A large one holds the only large worker, so the moved conversion waits in that queue.
        const large = pool.run(job(generateMarkdown(300 * 1024))).catch((error: unknown) => error);
        const output = join(dir, 'moved.docx');
        const abort = new AbortController();
        const small = await new Promise<Promise<unknown>>((resolve) =>
          setImmediate(() => {
            const pending = pool
              .run({ ...job(generateMarkdown(60 * 1024), abort.signal), output })
              .catch((error: unknown) => error);
            // The event loop is held while the small conversion finishes and stores its output; the budget check's
            // timer then runs before its answer is read (timers come first): it is moved, and cancelled while it waits.
            setTimeout(() => abort.abort(), 120);
            Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 4_000);
            resolve(pending);
          }),
        );
        expect(await small).toHaveProperty('name', 'ConvertCancelledError');
        expect(pool.counters.moved).toBe(1);
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        expect(readdirSync(dir)).toEqual([]);
        await large;
      },
    );
  }, 120_000);
});

describe('template caches', () => {
  it('a deleted template is forgotten by the main thread and every worker; each cache keeps a bounded number', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dw-pool-'));
    const store = await Store.open(dir);
    const secret = randomBytes(32);
    const app = await buildApp({ store, secret, convert: { size: 1, templatesPerWorker: 4 } });
    const services = app.services;
    try {
      const corporate = fixture('templates', 'corporate.docx');
      const at = new Date().toISOString();
      const ids: string[] = [];
      for (let i = 0; i < TEMPLATES_CACHED + 2; i++) {
        const template = await store.addTemplate(
          {
            id: `3a3a3a3a-0000-4000-8000-${String(i).padStart(12, '0')}`,
            name: `Corporate ${i}`,
            description: '',
            version: 1,
            created_at: at,
            updated_at: at,
          },
          corporate,
        );
        ids.push(template.id);
        await services.convert({
          markdown: '# Title',
          template_id: template.id,
          mapping_id: BUILTIN_MAPPING_ID,
          channel: 'api',
        });
        await services.mappingWarnings(template.id, DEFAULT_RULES);
      }
      expect(services.templatesCached).toEqual({ parsed: TEMPLATES_CACHED, bytes: TEMPLATES_CACHED });
      const last = ids.at(-1) ?? '';
      expect(services.convertPool.templatesHeld).toEqual([
        ids.slice(-4).map((id): unknown => expect.stringMatching(`^${id}:`)),
      ]);
      const { key } = await services.createApiKey('cache test', secret);
      const byKey = await app.inject({
        method: 'DELETE',
        url: `/api/v1/templates/${last}`,
        headers: { host: '127.0.0.1', authorization: `Bearer ${key}` },
      });
      expect(byKey.statusCode).toBe(204);
      expect(services.templatesCached).toEqual({ parsed: TEMPLATES_CACHED - 1, bytes: TEMPLATES_CACHED - 1 });
      expect(services.convertPool.templatesHeld).toEqual([
        ids.slice(-4, -1).map((id): unknown => expect.stringMatching(`^${id}:`)),
      ]);
      // The worker forgot it too: the next conversion with the template before it still converts (cached or sent).
      const { docx } = await services.convert({
        markdown: '# After',
        template_id: ids.at(-2) ?? '',
        mapping_id: BUILTIN_MAPPING_ID,
        channel: 'api',
      });
      expect((await validateDocx(docx)).ok).toBe(true);
    } finally {
      await app.close();
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
