// Runs `docwright` as a user does: `node bin/docwright.js …` child processes, and `serve` as a long-running child
// whose URL is read from its standard output. Every child started here is tracked, so afterAll can kill it.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Agent, request } from 'undici';

export const BIN = resolve(import.meta.dirname, '../../bin/docwright.js');

const children = new Set<ChildProcess>();

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `docwright ARGS` to completion (killed after `timeoutMs`); never rejects. */
export function runCli(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number; /** Written to its standard input. */ input?: string } = {},
): Promise<CliResult> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: options.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    children.add(child);
    // Nothing, or the input, then its end (a child that exits before reading it all is no error).
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      children.delete(child);
      done({ code: code ?? (signal ? 128 : -1), stdout, stderr });
    });
  });
}

export interface ServeProcess {
  child: ChildProcess;
  pid: number;
  /** The URL the server printed ("Docwright is running at URL"). */
  url: string;
  /** Everything it wrote to standard error so far. */
  stderr: () => string;
  /** Everything it wrote to standard output so far. */
  stdout: () => string;
  /** Resolves when the process has exited (and been reaped, so its pid no longer looks alive). */
  exited: Promise<void>;
}

/**
 * Starts `docwright serve --port 0 [ARGS]` and waits until it prints its URL. `wrapper` runs it through another
 * command, e.g. `['prlimit', '--fsize=20000', '--']` for a file-size limit; `entry` replaces `bin/docwright.js serve`
 * (Node's arguments and a script that prints the same line, e.g. the desktop app's server: desktop-server.ts).
 */
export async function startServe(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number; wrapper?: string[]; entry?: string[] } = {},
): Promise<ServeProcess> {
  const argv = [process.execPath, ...(options.entry ?? [BIN, 'serve']), '--port', '0', ...args];
  const [command = process.execPath, ...rest] = [...(options.wrapper ?? []), ...argv];
  const child = spawn(command, rest, { env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = once(child, 'exit').then(() => {
    children.delete(child);
  });
  const url = await new Promise<string>((done, fail) => {
    const timer = setTimeout(
      () => fail(new Error(`docwright serve printed no URL in time; stdout: ${stdout}; stderr: ${stderr}`)),
      options.timeoutMs ?? 30_000,
    );
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      const m = /Docwright is running at (\S+)/.exec(stdout);
      if (m?.[1]) {
        clearTimeout(timer);
        done(m[1]);
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      fail(
        new Error(
          `docwright serve exited (${String(child.exitCode ?? child.signalCode)}) before printing its URL; stderr: ${stderr}`,
        ),
      );
    });
  });
  child.stdout.resume();
  if (child.pid === undefined) throw new Error('docwright serve has no process id');
  return { child, pid: child.pid, url, stderr: () => stderr, stdout: () => stdout, exited };
}

/** Kills (SIGKILL) every child process started here that is still running, and waits for them. */
export async function killAllChildren(): Promise<void> {
  const waits: Promise<unknown>[] = [];
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      waits.push(once(child, 'exit'));
      child.kill('SIGKILL');
    }
  }
  children.clear();
  await Promise.all(waits);
}

/** An undici dispatcher that trusts exactly the server's certificate (PEM file). */
export function trustingAgent(certPath: string, connections?: number): Agent {
  return new Agent({ connect: { ca: readFileSync(certPath, 'utf8') }, ...(connections ? { connections } : {}) });
}

export interface HttpResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: Buffer;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as light-my-request's json(): the test knows the body
  json: () => any;
}

/** One request; the body is read completely. `body` objects are sent as JSON. */
export async function call(
  dispatcher: Agent | undefined,
  url: string,
  options: { method?: 'GET' | 'POST' | 'PATCH' | 'DELETE'; headers?: Record<string, string>; body?: unknown } = {},
): Promise<HttpResult> {
  const headers = { ...(options.headers ?? {}) };
  let body: string | undefined;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  const res = await request(url, {
    method: options.method ?? 'GET',
    headers,
    ...(body !== undefined ? { body } : {}),
    ...(dispatcher ? { dispatcher } : {}),
  });
  const bytes = Buffer.from(await res.body.arrayBuffer());
  return { status: res.statusCode, headers: res.headers, bytes, json: () => JSON.parse(bytes.toString('utf8')) };
}
