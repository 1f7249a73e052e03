// The Node/V8 flags a Docwright server process runs with (`docwright serve`, `npm start`, the bench's load server).
// They can only be given on the process's command line (V8 aborts when they are set at run time).
// --single-threaded-gc: V8's parallel GC helper threads cost as much CPU as the conversion itself on a server that
// runs its own worker threads on every core (docs/performance.md, "The server's process flags").
export const SERVER_NODE_FLAGS = ['--single-threaded-gc'];

/** Whether this process already runs with every one of them. */
export function hasServerFlags(execArgv = process.execArgv) {
  return SERVER_NODE_FLAGS.every((flag) => execArgv.includes(flag));
}

/** Whether a `docwright` command line may start a server (`serve`, `mcp`), e.g. `--data-dir d serve -p 0`. */
export function startsServer(args) {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--data-dir') i += 1;
    else if (!args[i].startsWith('-')) return args[i] === 'serve' || args[i] === 'mcp';
  }
  return false;
}
