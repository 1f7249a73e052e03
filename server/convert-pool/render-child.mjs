// The SVG renderer's child process (render-child.ts starts it). Three ways to run it:
// - `render-child.mjs OPTIONS`: one render; the SVG on standard input, OPTIONS (JSON) as the argument; on standard
//   output one line of JSON (the outcome, the size and this process's CPU time), then the PNG.
// - `render-child.mjs --serve`: renders one after another for the pool (warm: Node and the renderer load once).
//   Each request on standard input is a frame (4-byte big-endian length, then JSON { svg, options }); each answer on
//   standard output a frame of the JSON line and the PNG as above, with the CPU time of that render alone.
// - the same as an Electron utility process (the desktop app, whose installed binary cannot run as Node:
//   main/render-launcher.ts), where `process.parentPort` exists: each request a message { svg, options }, each
//   answer a message of a frame's body (a utility process has no standard input).
// - `render-child.mjs --probe` (Linux): the address space, in kB, a child takes before it renders (its limit is this
//   plus a margin).
import { readFileSync } from 'node:fs';
import { loadRenderer, renderPng } from '../convert/images/render-core.mjs';

/** One render's answer: its JSON line and its PNG. */
function answer(svg, options, cpuBefore) {
  let header;
  let png = new Uint8Array(0);
  try {
    const result = renderPng(svg, options);
    if (result.ok) {
      png = result.png;
      header = { ok: true, width: result.width, height: result.height };
    } else header = { ok: false, reason: result.reason };
  } catch {
    header = { ok: false, reason: 'an SVG that cannot be rendered' };
  }
  const { user, system } = process.cpuUsage(cpuBefore);
  const line = Buffer.from(`${JSON.stringify({ ...header, cpuMs: Math.round((user + system) / 1000) })}\n`);
  return Buffer.concat([line, png]);
}

/** Electron's port to the process that forked this one (in a utility process), else undefined. */
const parentPort = /** @type {{ parentPort?: import('electron').ParentPort }} */ (process).parentPort;

if (parentPort) {
  parentPort.on('message', ({ data }) => {
    parentPort.postMessage(answer(data.svg, data.options, process.cpuUsage()));
  });
} else if (process.argv[2] === '--probe') {
  loadRenderer();
  process.stdout.write(/VmPeak:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'latin1'))?.[1] ?? '0');
} else if (process.argv[2] === '--serve') {
  let pending = Buffer.alloc(0);
  process.stdin.on('data', (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 4 && pending.length >= 4 + pending.readUInt32BE(0)) {
      const length = pending.readUInt32BE(0);
      const request = JSON.parse(pending.subarray(4, 4 + length).toString('utf8'));
      pending = pending.subarray(4 + length);
      const body = answer(request.svg, request.options, process.cpuUsage());
      const size = Buffer.alloc(4);
      size.writeUInt32BE(body.length, 0);
      process.stdout.write(Buffer.concat([size, body]));
    }
  });
} else {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  process.stdout.write(answer(Buffer.concat(chunks).toString('utf8'), JSON.parse(process.argv[2] ?? '{}')));
}
