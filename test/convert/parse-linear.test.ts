import { describe, expect, it } from 'vitest';
import { generateMarkdown } from '../../bench/generate.ts';
import { parseTree } from '../../server/convert/parse/index.ts';
import { attributeBlocks } from '../../server/convert/parse/attributes.ts';

/** CPU milliseconds `fn` takes. */
function cpuMs(fn: () => void): number {
  const start = process.cpuUsage();
  fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

// The parse's attribute pass on the bench's documents, in the order the bench converts them (the JIT's state
// matters): a whole-document search for ']{' (String.prototype.includes) took 1.6 s at 1.2 MB on Node 26, after
// conversions of 120 KB, where 120 KB took under 10 ms: 0.3 ms a KB against 0.03 (docs/performance.md).
describe('the attribute pass grows with the document, not faster', () => {
  it('costs at 1.2 MB at most 3 times per KB what it costs at 120 KB', () => {
    const small = generateMarkdown(120 * 1024);
    for (let i = 0; i < 3; i++) attributeBlocks(parseTree(small), small);
    const smallTree = parseTree(small);
    const smallMs = cpuMs(() => attributeBlocks(smallTree, small));
    const large = generateMarkdown(1200 * 1024);
    const largeTree = parseTree(large);
    const largeMs = cpuMs(() => attributeBlocks(largeTree, large));
    // Per KB, with 5 ms of slack for a loaded machine's small figure.
    expect(largeMs / 10).toBeLessThan(3 * Math.max(smallMs, 5));
  }, 120_000);
});
