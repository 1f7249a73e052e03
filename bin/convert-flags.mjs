// The V8 flags a one-shot `docwright convert` sets on itself at run time (bin/docwright.js; these V8 takes then).
// --invocation-count-for-turbofan / -osr (10x the defaults): a conversion ends before most TurboFan optimisations pay
//   back (their compiling was ~30 % of the CPU time of a 10 KB or 120 KB conversion); the hottest functions of a
//   large document are still optimised.
// --invocation-count-for-maglev (10x the default): the same for Maglev, V8's mid-tier compiler, on by default since
//   Node 24: a cold 10 KB conversion on Node 26 compiled ~230 functions with it, ~35 with this; CPU 0.44 -> 0.36 s
//   (120 KB: 1.17 -> 1.04 s), the same wall time (0.32 / 0.30 s, 0.79 s; 6 alternating rounds each).
// --heap-growing-percent=30: V8 lets the heap grow by at most 30 % past what a full collection leaves alive, instead of
//   up to 4x on a program that allocates fast: a 1.2 MB document's peak RSS 298 -> 231 MB, the same wall time (120 KB:
//   no change). docs/performance.md, "Command-line start-up" and "The process's heap".
// None changes an output.
import { resolve } from 'node:path';

export const CONVERT_V8_FLAGS = [
  '--invocation-count-for-turbofan=30000',
  '--invocation-count-for-osr=8000',
  '--invocation-count-for-maglev=4000',
  '--heap-growing-percent=30',
];

/** Whether ARGS run `convert` (its name is the first word that is not an option or the --data-dir folder). */
export function isConvert(args) {
  const words = args.filter((arg, i) => !arg.startsWith('-') && args[i - 1] !== '--data-dir');
  return words[0] === 'convert';
}

/** The flags to set for ARGS: none but for `convert`, and none the user gave Node on its command line. */
export function convertV8Flags(args, execArgv = process.execArgv, env = process.env) {
  if (!isConvert(args)) return [];
  return CONVERT_V8_FLAGS.filter((flag) => !userGave(flagName(flag), execArgv, env));
}

// A large document (a file of at least 512 KB) converted in the command line's own process runs in a process with
// 16 MB semi-spaces: V8 13 (Node 24+) grows the young generation to 2 x 32 MB, which took a 1.2 MB document's peak RSS
// from ~250 to ~320 MB for ~8 % less time. Only a command line sets it (V8 sizes the heap when the process starts), so
// bin/docwright.js replaces itself (process.execve: the same pid, streams and signals) with a process that has it:
// one Node start-up (~30 ms) on a conversion of seconds. Only where the conversion is sure to run in this process
// (--no-daemon, DOCWRIGHT_DAEMON off, Windows, or markdown over the daemon's 4 MB), never for standard input (its
// size is not known beforehand), never when a path names an inherited file descriptor (/dev/fd/N, /proc/.../fd/N:
// the numbers mean other files after an exec), and never over such a flag the user gave Node (command line or
// NODE_OPTIONS). A first conversion that starts the daemon converts here without it. docs/performance.md, "Node 26".
export const LARGE_INPUT_BYTES = 512 * 1024;
export const LARGE_CONVERT_NODE_FLAGS = ['--max-semi-space-size=16'];
/**
 * The largest markdown the conversion daemon takes (server/convert-daemon/limits.ts, where the reason is): larger is
 * converted in the command line's own process.
 */
export const DAEMON_MARKDOWN_BYTES = 4 * 1024 * 1024;

/** The options of `convert` (and the global --data-dir) that take a value: the next word. */
const VALUE_OPTIONS = new Set(['-o', '--output', '-t', '--template', '-m', '--mapping', '--data-dir']);
/** The short options that take a value, as the last letter of a group (`-qo out.docx`). */
const VALUE_LETTERS = new Set(['o', 't', 'm']);

/** The input file of a `convert` command line (undefined: not convert, or standard input). */
export function convertInput(args) {
  let i = 0;
  for (; i < args.length && args[i] !== 'convert'; i++) if (args[i] === '--data-dir') i += 1;
  if (i >= args.length) return undefined;
  for (let j = i + 1; j < args.length; j++) {
    const arg = args[j];
    if (arg === '--') return args[j + 1] === '-' ? undefined : args[j + 1];
    if (arg === '-') return undefined;
    if (VALUE_OPTIONS.has(arg) || (/^-[a-zA-Z]+$/.test(arg) && VALUE_LETTERS.has(arg.at(-1)))) j += 1;
    else if (!arg.startsWith('-')) return arg;
  }
  return undefined;
}

/** A flag's name, V8's underscores read as dashes (`--max_semi_space_size=64` is `--max-semi-space-size`). */
const flagName = (arg) => arg.split('=')[0].replaceAll('_', '-');

/** Whether the user gave Node the flag NAME, on its command line or in NODE_OPTIONS. */
export function userGave(name, execArgv, env) {
  const given = [...execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/).filter(Boolean)];
  return given.some((arg) => flagName(arg) === name);
}

/** Whether DOCWRIGHT_DAEMON turns the conversion daemon off (server/convert-daemon/paths.ts reads it here too). */
export function daemonSwitchedOff(env) {
  return ['0', 'off', 'false', 'no'].includes((env.DOCWRIGHT_DAEMON ?? '').trim().toLowerCase());
}

/** Whether the conversion daemon is off for this command line: Windows (no daemon), --no-daemon, DOCWRIGHT_DAEMON. */
function daemonOff(args, env, platform) {
  return platform === 'win32' || args.includes('--no-daemon') || daemonSwitchedOff(env);
}

/** A path an exec would change the meaning of: an inherited file descriptor's name (after resolve()). */
const DESCRIPTOR_PATH = /^\/(?:dev\/(?:fd|stdin|stdout|stderr)|proc\/[^/]+\/(?:task\/[^/]+\/)?fd)(?:\/|$)/;

/**
 * Every path an argument may name: the argument, what follows `=` in an option, and what follows a short option that
 * takes a value in a group (`-o/dev/fd/3`, `-qo/dev/fd/3`).
 */
export function pathCandidates(args) {
  const paths = [];
  for (const arg of args) {
    paths.push(arg);
    if (!arg.startsWith('-')) continue;
    const eq = arg.indexOf('=');
    if (eq > 0) paths.push(arg.slice(eq + 1));
    for (let k = 2; k < arg.length && /[a-zA-Z]/.test(arg[k - 1]); k++)
      if (VALUE_LETTERS.has(arg[k - 1])) paths.push(arg.slice(k));
  }
  return paths;
}

/** Whether PATH names a descriptor, however it is spelt (`//dev/fd/5`, `/dev/./fd/5`, `/proc/self/root/dev/fd/5`). */
export function descriptorPath(path, cwd = process.cwd()) {
  const absolute = resolve(cwd, path).replace(/^(?:\/proc\/[^/]+\/root)+(?=\/)/, '');
  return DESCRIPTOR_PATH.test(absolute);
}

/**
 * The Node flags to run `convert` again with (see LARGE_CONVERT_NODE_FLAGS): none unless the input is a regular file
 * of at least LARGE_INPUT_BYTES that this process will convert. `size` reads a path's size (or throws); `opened`
 * tells whether a path is a file this process holds open as a descriptor from 3 up (what an exec would lose).
 */
export function convertNodeFlags(
  args,
  execArgv,
  size,
  env = process.env,
  platform = process.platform,
  opened = () => false,
) {
  if (!isConvert(args)) return [];
  if (args.some((arg) => ['-h', '--help', '-V', '--version'].includes(arg))) return [];
  if (pathCandidates(args).some((path) => descriptorPath(path))) return [];
  const input = convertInput(args);
  if (input === undefined) return [];
  let bytes;
  try {
    bytes = size(input);
  } catch {
    return [];
  }
  if (!(bytes >= LARGE_INPUT_BYTES)) return [];
  if (!daemonOff(args, env, platform) && bytes <= DAEMON_MARKDOWN_BYTES) return [];
  // A path that reaches an inherited descriptor another way (a link the user made to /dev/fd/5): not run again.
  if (pathCandidates(args).some((path) => opened(path))) return [];
  return LARGE_CONVERT_NODE_FLAGS.filter((flag) => !userGave(flagName(flag), execArgv, env));
}
