// A batch `docwright convert` sent to the running server (docs/cli.md, "Through the running server") whose server is
// killed (SIGKILL) in the middle: every input is still converted (the rest in the command's own process), each
// document valid, exit status 0, and no input is reported twice or lost.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateMarkdown } from '../../bench/generate.ts';
import { validateDocx } from '../helpers/docx.ts';
import { killAllChildren, startServe } from '../helpers/docwright-process.ts';

const BIN = resolve(import.meta.dirname, '../../bin/docwright.js');
const temp = mkdtempSync(join(tmpdir(), 'dw-cli-server-dies-'));
const COUNT = 8;

afterAll(async () => {
  await killAllChildren();
  rmSync(temp, { recursive: true, force: true });
});

describe('a batch through the running server when the server dies', () => {
  it('converts every input, the rest in its own process', async () => {
    const data = join(temp, 'data');
    const env: NodeJS.ProcessEnv = { ...process.env, DOCWRIGHT_HOME: data, DOCWRIGHT_KEYCHAIN: 'off' };
    const server = await startServe([], { env, timeoutMs: 60_000 });
    const inputs = join(temp, 'in');
    mkdirSync(inputs);
    const markdown = generateMarkdown(200 * 1024);
    for (let i = 0; i < COUNT; i++) writeFileSync(join(inputs, `doc-${String(i).padStart(2, '0')}.md`), markdown);
    const out = join(temp, 'out');
    const before =
      readFileSync(`/proc/${String(server.pid)}/stat`, 'utf8')
        .split(') ')[1]
        ?.split(' ') ?? [];
    const startCpu = Number(before[11]) + Number(before[12]);
    const cli = spawn(process.execPath, [BIN, 'convert', inputs, '-o', out], { env, stdio: 'pipe' });
    let stderr = '';
    let killed = false;
    cli.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // Killed once the server has taken its first conversion (its CPU time says so), before the batch is through.
    const started = Date.now();
    const watch = setInterval(() => {
      if (killed) return;
      const stat =
        readFileSync(`/proc/${String(server.pid)}/stat`, 'utf8')
          .split(') ')[1]
          ?.split(' ') ?? [];
      const cpu = Number(stat[11]) + Number(stat[12]) - startCpu;
      // In clock ticks (1/100 s): a third of a second of CPU time past its start.
      if (cpu > 30 || Date.now() - started > 4000) {
        killed = true;
        process.kill(server.pid, 'SIGKILL');
      }
    }, 50);
    const code = await new Promise<number | null>((done) => cli.on('exit', done));
    clearInterval(watch);
    expect(killed).toBe(true);
    expect(code, stderr).toBe(0);
    const written = readdirSync(out).sort();
    expect(written).toHaveLength(COUNT);
    // One line per input, each once.
    const lines = stderr.split('\n').filter((line) => line.startsWith('Wrote '));
    expect(lines).toHaveLength(COUNT);
    // The server was gone before the batch was through: what was left was converted here.
    expect(lines.some((line) => !line.includes('converted by the running server'))).toBe(true);
    for (const name of written) {
      const { ok, report } = await validateDocx(readFileSync(join(out, name)));
      expect(ok, `${name}: ${report}`).toBe(true);
    }
  }, 300_000);
});
