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
export function convertV8Flags(args, execArgv = process.execArgv) {
  if (!isConvert(args)) return [];
  return CONVERT_V8_FLAGS.filter((flag) => {
    const name = flag.slice(0, flag.indexOf('='));
    return !execArgv.some((arg) => arg === name || arg.startsWith(`${name}=`));
  });
}

// A large document (a file of at least 512 KB) is converted by a process with 16 MB semi-spaces: V8 13 (Node 24+)
// grows the young generation to 2 x 32 MB, which took a 1.2 MB document's peak RSS from ~250 to ~320 MB for ~8 %
// less time. Only a command line sets it (V8 sizes the heap when the process starts), so bin/docwright.js runs itself
// again for such a file: one Node start-up (~30 ms) on a conversion of seconds. Smaller documents never reach the
// larger young generation's size, and standard input's size is not known beforehand: neither is run again.
// docs/performance.md, "Node 26".
export const LARGE_INPUT_BYTES = 512 * 1024;
export const LARGE_CONVERT_NODE_FLAGS = ['--max-semi-space-size=16'];

/** The options of `convert` that take a value (the next word), long and short. */
const VALUE_OPTIONS = new Set(['-o', '--output', '-t', '--template', '-m', '--mapping']);

/** The input file of a `convert` command line (undefined: not convert, or standard input). */
export function convertInput(args) {
  let i = 0;
  for (; i < args.length && args[i] !== 'convert'; i++) if (args[i] === '--data-dir') i += 1;
  if (i >= args.length) return undefined;
  for (let j = i + 1; j < args.length; j++) {
    if (args[j] === '--') return args[j + 1] === '-' ? undefined : args[j + 1];
    if (VALUE_OPTIONS.has(args[j])) j += 1;
    else if (!args[j].startsWith('-')) return args[j];
    else if (args[j] === '-') return undefined;
  }
  return undefined;
}

/**
 * The Node flags to run `convert` again with: LARGE_CONVERT_NODE_FLAGS when its input is a regular file of at least
 * LARGE_INPUT_BYTES, none otherwise or when the user gave Node such a flag. `size` reads a path's size (or throws).
 */
export function convertNodeFlags(args, execArgv, size) {
  if (!isConvert(args)) return [];
  const input = convertInput(args);
  if (input === undefined) return [];
  let bytes;
  try {
    bytes = size(input);
  } catch {
    return [];
  }
  if (!(bytes >= LARGE_INPUT_BYTES)) return [];
  return LARGE_CONVERT_NODE_FLAGS.filter((flag) => {
    const name = flag.slice(0, flag.indexOf('='));
    return !execArgv.some((arg) => arg === name || arg.startsWith(`${name}=`));
  });
}
