// The SVG renderer's child process (rasterise.ts starts it): the SVG on standard input, the options as the first
// argument; on standard output one line of JSON (the outcome, the size and this process's CPU time), then the PNG.
// With `--probe` (Linux): the address space, in kB, a child takes before it renders (its limit is this plus a margin).
import { readFileSync } from 'node:fs';
import { loadRenderer, renderPng } from './render-core.mjs';

if (process.argv[2] === '--probe') {
  loadRenderer();
  process.stdout.write(/VmPeak:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'latin1'))?.[1] ?? '0');
  process.exit(0);
}

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
let header;
let png = new Uint8Array(0);
try {
  const result = renderPng(Buffer.concat(chunks).toString('utf8'), JSON.parse(process.argv[2] ?? '{}'));
  if (result.ok) {
    png = result.png;
    header = { ok: true, width: result.width, height: result.height };
  } else header = { ok: false, reason: result.reason };
} catch {
  header = { ok: false, reason: 'an SVG that cannot be rendered' };
}
const { user, system } = process.cpuUsage();
process.stdout.write(`${JSON.stringify({ ...header, cpuMs: Math.round((user + system) / 1000) })}\n`);
process.stdout.write(png);
