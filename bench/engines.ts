// The engine of an older commit and this checkout's, side by side in the same minutes: in-process time at 120 KB and
// 1.2 MB, and the peak RSS of a cold process converting 1.2 MB, each engine in processes of its own, alternating
// (the machine's hour moves absolute figures by 20–40 %, so a ratio of one run is what holds; docs/performance.md).
// Usage: npx tsx bench/engines.ts [--before COMMIT] [--rounds N] [--sizes 120,1200]
// The older commit is checked out in a temporary worktree (with this checkout's node_modules) and removed after.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { generateMarkdown } from './generate.ts';
import { median } from './measure.ts';

const args = process.argv.slice(2);
const flag = (name: string, fallback: string): string => {
  const i = args.indexOf(name);
  return i >= 0 ? (args[i + 1] ?? fallback) : fallback;
};
const before = flag('--before', '94bf5f9');
const rounds = Number(flag('--rounds', '5'));
const sizes = flag('--sizes', '120,1200').split(',').map(Number);
const root = resolve(import.meta.dirname, '..');
const work = mkdtempSync(join(tmpdir(), 'dw-engines-'));
const old = join(work, 'before');
execFileSync('git', ['-C', root, 'worktree', 'add', '--detach', '--quiet', old, before]);
symlinkSync(join(root, 'node_modules'), join(old, 'node_modules'));
const engines = { before: join(old, 'server/convert/index.ts'), now: join(root, 'server/convert/index.ts') };
const once = join(root, 'bench/engine-once.ts');
const tsx = join(root, 'node_modules/.bin/tsx');

function run(engine: string, file: string, runs: number): { ms: number[]; rssMB: number } {
  const out = spawnSync('/usr/bin/time', ['-f', '%M', tsx, once, engine, file, String(runs)], {
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  if (out.status !== 0) throw new Error(`${engine}: ${out.stderr}`);
  const rss = Number(out.stderr.trim().split('\n').at(-1));
  return { ms: (JSON.parse(out.stdout.trim().split('\n').at(-1) ?? '{}') as { ms: number[] }).ms, rssMB: rss / 1024 };
}

try {
  console.log(
    `before: ${before} (${execFileSync('git', ['-C', old, 'log', '-1', '--format=%h %s']).toString().trim().slice(0, 80)})`,
  );
  console.log(
    `now: ${execFileSync('git', ['-C', root, 'log', '-1', '--format=%h %s']).toString().trim().slice(0, 80)}`,
  );
  for (const kb of sizes) {
    const file = join(work, `${String(kb)}.md`);
    writeFileSync(file, generateMarkdown(kb * 1024));
    const runs = kb >= 1000 ? 2 : 5;
    const times = { before: [] as number[], now: [] as number[] };
    const rss = { before: [] as number[], now: [] as number[] };
    for (let r = 0; r < rounds; r++) {
      // Alternating which goes first, so neither always meets the warmer or the busier minute.
      const order = r % 2 === 0 ? (['before', 'now'] as const) : (['now', 'before'] as const);
      for (const which of order) {
        times[which].push(...run(engines[which], file, runs).ms);
        if (kb >= 1000) rss[which].push(run(engines[which], file, 0).rssMB);
      }
    }
    const b = median(times.before);
    const n = median(times.now);
    console.log(
      `${String(kb)} KB in-process: before ${b.toFixed(1)} ms, now ${n.toFixed(1)} ms, now/before ${(n / b).toFixed(2)}× (${String(times.now.length)} conversions each)`,
    );
    if (rss.now.length) {
      const rb = median(rss.before);
      const rn = median(rss.now);
      console.log(
        `${String(kb)} KB peak RSS, cold process: before ${rb.toFixed(0)} MB, now ${rn.toFixed(0)} MB, now/before ${(rn / rb).toFixed(2)}×`,
      );
    }
  }
} finally {
  execFileSync('git', ['-C', root, 'worktree', 'remove', '--force', old]);
  rmSync(work, { recursive: true, force: true });
}
