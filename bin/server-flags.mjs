// The Node/V8 flags a Docwright server process runs with (`docwright serve`, `npm start`, the bench's load server).
// They can only be given on the process's command line (V8 aborts when they are set at run time).
// --single-threaded-gc: no parallel GC helper threads; on a server whose conversion workers already keep every core
// busy they cost more CPU than they save: 90-112 -> 60-84 ms of CPU per 9 KB conversion. (--single-threaded also
// stops the concurrent compilers, no clearer gain, and made a worker at its memory limit fail unpredictably.)
// --no-allocation-site-pretenuring: V8 allocates straight into the old generation the objects of allocation sites
// whose objects survived a scavenge; a server's conversions make the same objects again and again, each dead once
// its conversion is over, so they pile up there for full collections: 42 -> 32 ms of CPU per 9 KB conversion,
// 45 -> 56 conversions a second at 8 clients; 1.2 MB conversions unchanged.
// --expose-gc: a conversion worker collects its young generation once each conversion is answered, off the request's
// path (server/convert-pool/worker.ts), with V8's gc, which only this flag gives; set here, since nothing may switch a
// V8 flag on while the server runs. Measured on the HTTPS load (9 KB, 1 client, twice each, a busy machine): 37.7 and
// 36.6 -> 34.9 and 33.1 ms of CPU per conversion.
// --no-memory-pool-share-memory-on-teardown: a conversion worker that ends (idle, server/convert-pool/pool.ts) gives
// its heap's pages back to the system at once; by default V8 pools them for another isolate and frees them from a
// task of one that may never run on a server at rest: 100+ MB stayed (measured 286-307 MB at rest, 195 when freed).
// --managed-zone-memory: V8's compilers take their zone memory as V8's pages (freed with the worker) instead of from
// malloc, whose arenas kept ~25 MB of each dead worker's. Both: 120 KB twice through a server, then at rest 162 MB
// where it was 286-307 MB, the same CPU per conversion; test/server-at-rest.test.ts.
// docs/performance.md, "The speed machinery".
const BASE_FLAGS = ['--single-threaded-gc', '--no-allocation-site-pretenuring', '--expose-gc'];
/** V8 14's (Node 26, Electron 41): an older V8 (Node 22, 24) refuses a flag it does not know as a bad option. */
const V8_14_FLAGS = ['--no-memory-pool-share-memory-on-teardown', '--managed-zone-memory'];

/**
 * The server's flags for a Node whose V8 has version V8VERSION. A launcher on an older Node passes the base flags to
 * the Node it starts, which adds its own (bin/docwright.js: one more replacement of the process, only then).
 */
export function serverNodeFlags(v8Version = process.versions.v8) {
  return Number(v8Version.split('.')[0]) >= 14 ? [...BASE_FLAGS, ...V8_14_FLAGS] : BASE_FLAGS;
}

/** This Node's server flags. */
export const SERVER_NODE_FLAGS = serverNodeFlags();

/** Whether this process already runs with every one of FLAGS. */
export function hasServerFlags(execArgv = process.execArgv, flags = SERVER_NODE_FLAGS) {
  return flags.every((flag) => execArgv.includes(flag));
}

/** Whether a `docwright` command line may start a server (`serve`, `mcp`), e.g. `--data-dir d serve -p 0`. */
export function startsServer(args) {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--data-dir') i += 1;
    else if (!args[i].startsWith('-')) return args[i] === 'serve' || args[i] === 'mcp';
  }
  return false;
}
