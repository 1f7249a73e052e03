import { spawn } from 'node:child_process';
import { IMAGE_LIMITS } from '../convert/images/limits.ts';
import type { RenderRequest } from '../convert/index.ts';
import { renderOptions } from '../convert/images/render.ts';
import { probeRenderLimit, serveCommand } from './render-child.ts';

// How the pool starts a warm render child (render-child.mjs). The pool owns the child whatever started it: it sends
// the SVGs, reads the child's CPU time and resident memory from /proc by its pid and kills it (pool.ts). Two ways to
// start one: a Node child process (here: `prlimit` around it on Linux), and, in the installed desktop app whose
// Electron cannot run as Node, Electron's utilityProcess (main/render-launcher.ts; nothing in server/ imports electron).

/** One render as a render child gets it: the cleaned SVG and the renderer's options. */
export interface RenderChildRequest {
  svg: string;
  options: ReturnType<typeof renderOptions>;
}

/** The request for a render. */
export function renderChildRequest(request: RenderRequest): RenderChildRequest {
  return { svg: request.svg, options: renderOptions(request) };
}

/** A running warm render child, as the pool drives it. */
export interface RenderChildProcess {
  /** Its process id: the pool reads its CPU time and memory from /proc/PID and sets its priority by it. */
  readonly pid: number | undefined;
  /** Sends one render; the answer comes to onMessage. */
  send(request: RenderChildRequest): void;
  /** Each answer: a line of JSON (the outcome, the size, the render's CPU time), then the PNG (render-child.mjs). */
  onMessage(listener: (answer: Uint8Array) => void): void;
  /** Its end, whatever the cause (a kill, a crash, a limit); once. */
  onExit(listener: () => void): void;
  /** Ends it at once, mid-render too (SIGKILL where there are signals). */
  kill(): void;
}

/** Starts the pool's warm render children. */
export interface RenderChildLauncher {
  /** What to do once before the first start, without blocking the event loop (the Node launcher's prlimit probe). */
  prepare(): Promise<void>;
  /** Starts a child; resolves once it runs (its pid known), rejects if it cannot start. */
  start(): Promise<RenderChildProcess>;
}

/** A request to a Node render child: a 4-byte length, then the JSON. */
function requestFrame(request: RenderChildRequest): Buffer {
  const body = Buffer.from(JSON.stringify(request));
  const size = Buffer.alloc(4);
  size.writeUInt32BE(body.byteLength, 0);
  return Buffer.concat([size, body]);
}

/** The most an answer may be: a fallback is at most 2.5 megapixels, so more than an uncompressed one is not ours. */
export const MAX_ANSWER_BYTES = IMAGE_LIMITS.svgFallbackPixels * 4 + 65_536;

/**
 * A render child as a Node child process (`render-child.mjs --serve` on this process's executable, under `prlimit`
 * on Linux: its address space and its whole life's CPU time bounded; render-child.ts): requests and answers as frames
 * on its standard input and output. Everywhere but the installed desktop app.
 */
export const nodeRenderLauncher: RenderChildLauncher = {
  prepare: probeRenderLimit,
  start(): Promise<RenderChildProcess> {
    const { command, args, env } = serveCommand();
    const child = spawn(command, args, { env, stdio: ['pipe', 'pipe', 'ignore'] });
    // A warm child waiting for the next SVG keeps no process alive (the worker is referenced while it converts).
    child.unref();
    for (const stream of [child.stdin, child.stdout]) (stream as { unref?: () => void } | null)?.unref?.();
    const answers: ((answer: Uint8Array) => void)[] = [];
    const exits: (() => void)[] = [];
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      for (const listener of exits) listener();
    };
    let pending = Buffer.alloc(0);
    child.stdout.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.byteLength >= 4) {
        const length = pending.readUInt32BE(0);
        if (length > MAX_ANSWER_BYTES) {
          child.kill('SIGKILL');
          return;
        }
        if (pending.byteLength < 4 + length) return;
        const body = pending.subarray(4, 4 + length);
        pending = pending.subarray(4 + length);
        for (const listener of answers) listener(body);
      }
    });
    child.stdin.on('error', () => undefined);
    child.on('error', end);
    child.on('close', end);
    const running: RenderChildProcess = {
      get pid() {
        return child.pid;
      },
      send: (request) => child.stdin.write(requestFrame(request)),
      onMessage: (listener) => answers.push(listener),
      onExit: (listener) => exits.push(listener),
      kill: () => child.kill('SIGKILL'),
    };
    // A failed spawn has no pid and emits 'error' next: the pool sees its end at the first render.
    return Promise.resolve(running);
  },
};
