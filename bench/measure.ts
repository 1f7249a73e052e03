/** Timing helpers: medians, in-process timing and whole-process timing with the child's peak RSS. */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

const gc = (globalThis as { gc?: () => void }).gc;

/** Runs `fn` once to warm up, then `runs` times; returns every duration in ms (performance.now()). */
export function timeInProcess(fn: () => void, runs: number, warmups = 1): number[] {
  for (let i = 0; i < warmups; i++) fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    gc?.();
    const start = performance.now();
    fn();
    samples.push(performance.now() - start);
  }
  return samples;
}

/** timeInProcess for a function that returns a promise: each run awaited. */
export async function timeInProcessAsync(fn: () => Promise<void>, runs: number, warmups = 1): Promise<number[]> {
  for (let i = 0; i < warmups; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    gc?.();
    const start = performance.now();
    await fn();
    samples.push(performance.now() - start);
  }
  return samples;
}

export interface ProcessSample {
  ms: number;
  /** The child's peak resident set size in KiB, when it could be measured. */
  rssKiB: number | null;
}

export class ProcessError extends Error {
  constructor(
    message: string,
    readonly detail: string,
  ) {
    super(message);
  }
}

const TIME_BIN = '/usr/bin/time';
export const hasTimeBin = existsSync(TIME_BIN);

/**
 * Runs a command to completion and times it (wall clock, performance.now()). The peak RSS comes from
 * GNU time (`/usr/bin/time -f %M`) when it is installed, else from polling /proc/<pid>/status (VmHWM).
 * Throws a ProcessError when the command fails or does not write `output`.
 */
export async function timeProcess(
  command: string,
  args: readonly string[],
  output: string,
  cwd: string,
  rssFile: string,
): Promise<ProcessSample> {
  rmSync(output, { force: true });
  let sample: ProcessSample & { status: number | null; stderr: string };
  if (hasTimeBin) {
    rmSync(rssFile, { force: true });
    const start = performance.now();
    const result = spawnSync(TIME_BIN, ['-f', '%M', '-o', rssFile, command, ...args], {
      cwd,
      stdio: ['ignore', 'ignore', 'pipe'],
      maxBuffer: 256 * 1024 * 1024,
    });
    const ms = performance.now() - start;
    if (result.error) throw new ProcessError(`${command}: ${result.error.message}`, '');
    const lines = existsSync(rssFile) ? readFileSync(rssFile, 'utf8').trim().split('\n') : [];
    const rss = Number.parseInt(lines[lines.length - 1] ?? '', 10);
    sample = {
      ms,
      rssKiB: Number.isFinite(rss) ? rss : null,
      status: result.status,
      stderr: result.stderr.toString('utf8'),
    };
  } else {
    sample = await pollProcess(command, args, cwd);
  }
  if (sample.status !== 0)
    throw new ProcessError(
      `exit ${sample.status ?? 'signal'}`,
      sample.stderr.trim().split('\n').slice(0, 5).join('\n'),
    );
  if (!existsSync(output) || statSync(output).size === 0)
    throw new ProcessError('no output written', sample.stderr.trim().split('\n').slice(0, 5).join('\n'));
  return { ms: sample.ms, rssKiB: sample.rssKiB };
}

/** Fallback without GNU time: spawns the child and samples its high-water mark (a lower bound of the peak). */
function pollProcess(
  command: string,
  args: readonly string[],
  cwd: string,
): Promise<ProcessSample & { status: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let peak: number | null = null;
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 65536) stderr += chunk.toString('utf8');
    });
    const poll = (): void => {
      try {
        const status = readFileSync(`/proc/${String(child.pid)}/status`, 'utf8');
        const match = /VmHWM:\s+(\d+)\s+kB/.exec(status);
        if (match?.[1]) peak = Math.max(peak ?? 0, Number(match[1]));
      } catch {
        // not on Linux, or the child has already exited
      }
    };
    const timer = setInterval(poll, 5);
    child.on('error', (err) => {
      clearInterval(timer);
      reject(new ProcessError(`${command}: ${err.message}`, ''));
    });
    child.on('exit', (status) => {
      const ms = performance.now() - start;
      clearInterval(timer);
      resolve({ ms, rssKiB: peak, status, stderr });
    });
  });
}

/** The first line a command prints, or null when it cannot run. */
export function versionOf(command: string, args: readonly string[]): string | null {
  const result = spawnSync(command, args, { stdio: ['ignore', 'pipe', 'ignore'] });
  if (result.error || result.status !== 0) return null;
  return result.stdout.toString('utf8').split('\n')[0]?.trim() ?? null;
}
