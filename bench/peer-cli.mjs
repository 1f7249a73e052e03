// Converts one markdown file with an npm peer, as its users would call it, for process timing and peak memory:
//   node bench/peer-cli.mjs markdown-docx|md-to-docx INPUT.md OUTPUT.docx
// Images are left out by both (markdown-docx: ignoreImage; md-to-docx finds none at the relative paths and warns),
// as Docwright writes a placeholder for them; warnings are silenced.
import { readFileSync, writeFileSync } from 'node:fs';
import { peers } from './peers.mjs';

const [name, input, output] = process.argv.slice(2);
const peer = peers.find((p) => p.name === name);
if (!peer || !input || !output) {
  console.error(`usage: node bench/peer-cli.mjs ${peers.map((p) => p.name).join('|')} INPUT OUTPUT`);
  process.exit(2);
}
writeFileSync(output, await peer.convert(readFileSync(input, 'utf8')));
