// One engine in one process (bench/engines.ts runs it): converts the markdown file `runs` times after a warm-up
// (the template read and the engine compiled) and prints the durations in ms as JSON; with runs 0, converts once,
// cold, for the process's peak RSS. Usage: tsx bench/engine-once.ts ENGINE_INDEX_TS MARKDOWN_FILE RUNS
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { timeInProcessAsync } from './measure.ts';

const [enginePath = '', file = '', runsText = '0'] = process.argv.slice(2);
const engine = (await import(resolve(enginePath))) as {
  convert: (input: { markdown: string; created: Date }) => Promise<{ docx: Uint8Array }>;
};
const markdown = readFileSync(file, 'utf8');
const created = new Date('2026-01-01T00:00:00Z');
const runs = Number(runsText);
if (runs === 0) {
  await engine.convert({ markdown, created });
  console.log(JSON.stringify({ ms: [] }));
} else {
  const ms = await timeInProcessAsync(async () => {
    await engine.convert({ markdown, created });
  }, runs);
  console.log(JSON.stringify({ ms }));
}
