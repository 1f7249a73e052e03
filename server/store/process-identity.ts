import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** A process as the OS knows it: what tells it apart from a later process with the same pid. */
export interface ProcessInfo {
  /** Stable for the life of the process, different for any other process that ever has its pid. */
  identity: string;
  /** When it started (ms since the epoch; to a second or so). */
  startedAt: number;
  /** Dead, waiting for its parent to reap it: it holds nothing. */
  zombie: boolean;
}

/** Clock ticks a second of /proc/<pid>/stat's start time (USER_HZ: 100 on every Linux architecture). */
const USER_HZ = 100;

function linuxInfo(pid: number): ProcessInfo | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ESRCH')
      return null;
    throw error;
  }
  // Fields after the command name (in parentheses, which may itself hold spaces and parentheses): state is field 3,
  // the start time (clock ticks after boot) field 22.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const state = fields[0] ?? '';
  const ticks = fields[19] ?? '';
  const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  const btime = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1] ?? 0);
  return {
    identity: `linux:${bootId}:${ticks}`,
    startedAt: btime * 1000 + (Number(ticks) * 1000) / USER_HZ,
    zombie: state === 'Z' || state === 'X',
  };
}

function psInfo(pid: number): ProcessInfo | null {
  let out: string;
  try {
    out = execFileSync('ps', ['-o', 'lstart=,stat=', '-p', String(pid)], {
      encoding: 'utf8',
      env: { ...process.env, LC_ALL: 'C' },
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 5_000,
    });
  } catch (error) {
    // ps exits 1 with nothing printed when no such process exists.
    if ((error as { status?: number }).status === 1) return null;
    throw error;
  }
  // lstart is a fixed-width date ("Mon Nov 23 14:45:42 2026"), then the state letters.
  const line = out.trim();
  const lstart = line.slice(0, 24);
  return { identity: `ps:${lstart}`, startedAt: Date.parse(lstart), zombie: line.slice(24).trim().startsWith('Z') };
}

/**
 * The OS's record of a process: null when no such process exists, undefined where it cannot be told (Windows, or
 * the system refused to say); then only the pid is known.
 */
export function processInfo(pid: number): ProcessInfo | null | undefined {
  if (process.platform === 'win32') return undefined;
  try {
    return process.platform === 'linux' ? linuxInfo(pid) : psInfo(pid);
  } catch {
    return undefined;
  }
}
