// A stand-in for Electron's utilityProcess.fork (https://www.electronjs.org/docs/latest/api/utility-process), for
// tests of main/render-launcher.ts on plain Node, where the Electron binary is absent. Its shape follows Electron's
// documented API: fork(modulePath, args, { env, execArgv, cwd, stdio, serviceName }) returns an EventEmitter with
// 'spawn', 'exit' (the exit code) and 'message' (the data alone) events, postMessage(message), kill() (SIGTERM on
// POSIX, as Electron's) and pid (undefined before 'spawn' and after 'exit'); stdin is never a pipe. The child gets
// `process.parentPort` (utility-parent-port.mjs) over Node's IPC channel with the advanced (structured clone)
// serialisation, so bytes arrive as a Uint8Array, as Electron's messages do. What it cannot be: a Chromium child
// process (no sandbox, no Mojo, no `serviceName` in any metric: it is recorded as `serviceName` on the stand-in).
import { fork as forkNode, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { constants } from 'node:os';
import type { UtilityForkOptions, UtilityProcessLike } from '../../main/render-launcher.ts';

const PARENT_PORT = new URL('./utility-parent-port.mjs', import.meta.url).href;

type Stdio = 'pipe' | 'ignore' | 'inherit';

/** Electron's stdio option: stdout and stderr only, stdin always 'ignore'. */
function stdioOf(option: Stdio | Stdio[] | undefined): [Stdio, Stdio, Stdio] {
  if (Array.isArray(option)) {
    if ((option[0] ?? 'ignore') !== 'ignore') throw new Error('a utility process cannot have a standard input');
    return ['ignore', option[1] ?? 'inherit', option[2] ?? 'inherit'];
  }
  const mode = option ?? 'inherit';
  return ['ignore', mode, mode];
}

export class UtilityProcessStandIn extends EventEmitter implements UtilityProcessLike {
  private running = false;

  constructor(
    readonly child: ChildProcess,
    readonly serviceName: string,
  ) {
    super();
    child.once('spawn', () => {
      this.running = true;
      this.emit('spawn');
    });
    child.on('message', (message: unknown) => this.emit('message', message));
    child.once('exit', (code, signal) => {
      this.running = false;
      // As waitpid tells it: a signal's number past 128.
      this.emit('exit', code ?? 128 + (signal ? constants.signals[signal] : 0));
    });
    // A child that could not start: Electron emits 'exit' alone.
    child.once('error', () => {
      if (!this.running && child.pid === undefined) this.emit('exit', 1);
    });
    // Electron's main process is not held open by its utility processes: neither is a test's.
    child.unref();
    child.channel?.unref();
  }

  get pid(): number | undefined {
    return this.running ? this.child.pid : undefined;
  }

  postMessage(message: unknown): void {
    if (this.child.connected) this.child.send(message as Parameters<ChildProcess['send']>[0]);
  }

  kill(): boolean {
    return this.child.kill('SIGTERM');
  }
}

/** Every process the stand-in started (tests end them). */
export const started: UtilityProcessStandIn[] = [];

/** utilityProcess.fork on Node. */
export function forkUtility(
  modulePath: string,
  args: string[] = [],
  options: Partial<Omit<UtilityForkOptions, 'stdio'>> & {
    execArgv?: string[];
    cwd?: string;
    stdio?: Stdio | Stdio[];
  } = {},
): UtilityProcessStandIn {
  const child = forkNode(modulePath, args, {
    env: options.env ?? process.env,
    execArgv: ['--import', PARENT_PORT, ...(options.execArgv ?? [])],
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    stdio: [...stdioOf(options.stdio), 'ipc'],
    serialization: 'advanced',
  });
  const stand = new UtilityProcessStandIn(child, options.serviceName ?? 'Node Utility Process');
  started.push(stand);
  return stand;
}
