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
export function convertV8Flags(args, execArgv = process.execArgv, env = process.env) {
  if (!isConvert(args)) return [];
  return CONVERT_V8_FLAGS.filter((flag) => !userGave(flagName(flag), execArgv, env));
}

/** A flag's name, V8's underscores read as dashes (`--max_semi_space_size=64` is `--max-semi-space-size`). */
const flagName = (arg) => arg.split('=')[0].replaceAll('_', '-');

/** Whether the user gave Node the flag NAME, on its command line or in NODE_OPTIONS. */
export function userGave(name, execArgv, env) {
  const given = [...execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/).filter(Boolean)];
  return given.some((arg) => flagName(arg) === name);
}
