// The desktop app's SVG render children: Electron's utility processes (the installed app's Electron cannot run as
// Node: the runAsNode fuse is off, electron-builder.yml). Plain Node code over the part of utilityProcess it uses, so
// it is tested on Node (test/helpers/utility-process.ts stands in for Electron's); main.ts hands it the real fork.
import { limitRunningChild, WARM_CHILD_CPU_MS } from '../server/convert-pool/render-child.ts';
import type {
  RenderChildLauncher,
  RenderChildProcess,
  RenderChildRequest,
} from '../server/convert-pool/render-launcher.ts';

/** What the launcher uses of Electron's UtilityProcess (https://www.electronjs.org/docs/latest/api/utility-process). */
export interface UtilityProcessLike {
  /** Set once the process runs ('spawn'); undefined again after 'exit'. */
  readonly pid: number | undefined;
  postMessage(message: unknown): void;
  /** Electron: SIGTERM on POSIX (the process reaped on exit), TerminateProcess on Windows. */
  kill(): boolean;
  once(event: 'spawn', listener: () => void): this;
  once(event: 'exit', listener: (code: number) => void): this;
  on(event: 'message', listener: (message: unknown) => void): this;
}

/** The options of utilityProcess.fork the launcher gives. */
export interface UtilityForkOptions {
  env: Record<string, string>;
  stdio: 'ignore';
  serviceName: string;
}

/** utilityProcess.fork's shape (modulePath, args, options). */
export type UtilityFork = (modulePath: string, args: string[], options: UtilityForkOptions) => UtilityProcessLike;

/** The name the render processes have in the app's process metrics (app.getAppMetrics(), child-process-gone). */
export const RENDER_SERVICE_NAME = 'Docwright SVG renderer';

/** How long a utility process may take to start before it is given up (ms). */
const START_MS = 30_000;

/**
 * The render child's environment: what render-child.mjs needs, few malloc arenas, nothing of the app's (as the Node
 * child's, server/convert-pool/render-child.ts); on Windows the system folder's variables, without which a process
 * cannot load system libraries.
 */
export function renderEnv(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): Record<string, string> {
  const kept: Record<string, string> = { MALLOC_ARENA_MAX: '2' };
  if (platform === 'win32')
    for (const [name, value] of Object.entries(env))
      if (value !== undefined && /^(systemroot|windir)$/i.test(name)) kept[name] = value;
  return kept;
}

/**
 * Starts render children as utility processes running SCRIPT (render-child.mjs, which answers on
 * `process.parentPort`). Each is the pool's like a Node child: its pid for the /proc watch (CPU time and resident
 * memory, Linux), killed with SIGKILL (utilityProcess.kill() sends SIGTERM, which a process may catch), its whole
 * life's CPU time bounded by `prlimit --pid` where util-linux has it (a child whose app was killed mid-render ends
 * there). No address-space limit: see docs/security.md, "Native code".
 */
export function utilityRenderLauncher(fork: UtilityFork, script: string): RenderChildLauncher {
  return {
    prepare: () => Promise.resolve(),
    async start(): Promise<RenderChildProcess> {
      const child = fork(script, ['--serve'], {
        env: renderEnv(process.env, process.platform),
        stdio: 'ignore',
        serviceName: RENDER_SERVICE_NAME,
      });
      const state = { exited: false };
      const exits: (() => void)[] = [];
      child.once('exit', () => {
        state.exited = true;
        for (const listener of exits.splice(0)) listener();
      });
      const pid = await new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => {
          child.kill();
          reject(new Error(`the SVG renderer did not start within ${String(START_MS / 1000)} s`));
        }, START_MS);
        child.once('spawn', () => {
          clearTimeout(timer);
          if (child.pid === undefined) reject(new Error('the SVG renderer started without a process id'));
          else resolve(child.pid);
        });
        exits.push(() => {
          clearTimeout(timer);
          reject(new Error('the SVG renderer ended as it started'));
        });
      });
      await limitRunningChild(pid, WARM_CHILD_CPU_MS);
      const kill = (): void => {
        if (state.exited) return;
        // Not once it has exited: its pid may name another process by then.
        if (process.platform !== 'win32') {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // Gone meanwhile.
          }
        }
        child.kill();
      };
      if (state.exited) throw new Error('the SVG renderer ended as it started');
      return {
        pid,
        send: (request: RenderChildRequest) => child.postMessage(request),
        onMessage: (listener) =>
          child.on('message', (message) => {
            // Anything but bytes is not an answer of render-child.mjs: an empty one, which the pool refuses.
            listener(message instanceof Uint8Array ? message : new Uint8Array(0));
          }),
        onExit: (listener) => {
          if (state.exited) queueMicrotask(listener);
          else exits.push(listener);
        },
        kill,
      };
    },
  };
}
