// The documentation as a user follows it: every shell block fenced as ```sh runnable in README.md and docs/ runs as
// written, with `docwright` on the PATH (as after the README's install step), in a scratch folder holding a copy of
// examples/, against a scratch data directory. Also: MCP snippets name an absolute command, the README stays short,
// and its test command is what CI runs.
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServer } from '../../server/serve.ts';

const root = resolve(import.meta.dirname, '../..');
const documents = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const text = (path: string): string => readFileSync(join(root, path), 'utf8');

/** The fenced blocks of a markdown file whose info string is exactly `info`. */
function blocks(markdown: string, info: string): string[] {
  const found: string[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    if (lines[i]?.trim() !== `\`\`\`${info}`) continue;
    const end = lines.findIndex((line, j) => j > i && line.trim() === '```');
    found.push(lines.slice(i + 1, end).join('\n'));
    i = end;
  }
  return found;
}

const runnable = documents.flatMap((path) =>
  blocks(text(path), 'sh runnable').map((block, n): [string, string] => [`${path} #${n + 1}`, block]),
);

/** A scratch folder with examples/, a data directory and a `docwright` on the PATH that runs this checkout. */
function scratch(): { cwd: string; env: NodeJS.ProcessEnv } {
  const cwd = mkdtempSync(join(tmpdir(), 'dw-docs-'));
  cpSync(join(root, 'examples'), join(cwd, 'examples'), { recursive: true });
  const bin = join(cwd, '.bin');
  mkdirSync(bin);
  writeFileSync(
    join(bin, 'docwright'),
    `#!/bin/sh\nexec "${process.execPath}" "${join(root, 'bin', 'docwright.js')}" "$@"\n`,
  );
  chmodSync(join(bin, 'docwright'), 0o755);
  const env = {
    ...process.env,
    PATH: `${bin}${delimiter}${process.env.PATH ?? ''}`,
    HOME: join(cwd, 'home'),
    DOCWRIGHT_HOME: join(cwd, 'data'),
    // The scratch data directory keeps its own key secret file instead of an entry in the session's keychain.
    DOCWRIGHT_KEYCHAIN: 'off',
  };
  return { cwd, env };
}

describe('runnable commands in the documentation', () => {
  it('are there (README and docs/cli.md hold some)', () => {
    expect(runnable.map(([where]) => where.split(' ')[0])).toEqual(
      expect.arrayContaining(['README.md', 'docs/cli.md']),
    );
  });

  it.each(runnable)('%s runs as written', (_, block) => {
    const { cwd, env } = scratch();
    const result = spawnSync('bash', ['-euo', 'pipefail', '-c', block], {
      cwd,
      env,
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(result.status, `${block}\n--- stderr:\n${result.stderr}`).toBe(0);
    expect(result.stderr).not.toMatch(/^docwright: /m);
  });
});

describe('the documentation', () => {
  it('starts MCP clients with an absolute command, never a bare npx', () => {
    const servers = documents.flatMap((path) =>
      blocks(text(path), 'json')
        .filter((block) => block.includes('"mcpServers"'))
        .flatMap((block) =>
          Object.entries(
            (JSON.parse(block) as { mcpServers: Record<string, { command?: string; url?: string }> }).mcpServers,
          ),
        )
        .map(([, server]) => ({ path, command: server.command, url: server.url })),
    );
    expect(servers.length).toBeGreaterThan(1);
    for (const server of servers) {
      if (server.url !== undefined) continue;
      expect(server.command, server.path).toMatch(/^\//);
    }
    for (const path of documents) expect(text(path), path).not.toMatch(/"command":\s*"npx"/);
  });

  it('keeps the README to one read (at most about 250 lines)', () => {
    expect(text('README.md').split('\n').length).toBeLessThanOrEqual(250);
  });

  it('gives as the test command exactly what CI runs', () => {
    const command = blocks(text('README.md'), 'sh').find((block) => block.includes('npm test'));
    expect(command).toBeDefined();
    const ci = text('.ci/run')
      .split('\n')
      .map((line) => line.trim());
    for (const step of (command ?? '').split('&&').map((s) => s.trim())) expect(ci, step).toContain(step);
  });

  it('shows GET /api/health answering what the server answers', async () => {
    const row = text('docs/api.md')
      .split('\n')
      .find((line) => /^\|\s*`GET \/api\/health`\s*\|/.test(line)); // the table is padded by Prettier
    const documented = /`(\{.*?\})`/.exec(row ?? '')?.[1];
    expect(documented, 'docs/api.md has a GET /api/health row with its JSON').toBeDefined();
    const server = await startServer({ dataDir: mkdtempSync(join(tmpdir(), 'dw-docs-health-')), port: 0, http: true });
    try {
      const answer: unknown = await (await fetch(`${server.discovery.url}/api/health`)).json();
      expect(answer).toEqual(JSON.parse(documented ?? 'null'));
    } finally {
      await server.close();
    }
  });
});
