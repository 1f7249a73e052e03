// deploy/docwright.service: systemd's own check where systemd-analyze exists, the fields the guide relies on, and
// its ExecStart command line run for real (paths swapped for test ones): the flags it gives start a team server.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { generate } from 'selfsigned';
import { Agent } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { call, killAllChildren, startServe } from '../helpers/docwright-process.ts';

const UNIT = resolve(import.meta.dirname, '../../deploy/docwright.service');
const dirs: string[] = [];

type Unit = Record<string, Record<string, string[]>>;

/** The unit file as sections of keys, each with every value it was given (systemd keys may repeat). */
function parseUnit(text: string): Unit {
  const unit: Unit = {};
  let section: Record<string, string[]> | undefined;
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(\w+)\]$/.exec(line);
    if (header?.[1]) {
      section = unit[header[1]] = {};
      continue;
    }
    const pair = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (!pair?.[1] || pair[2] === undefined || !section)
      throw new Error(`line ${i + 1} is neither a section, a comment nor Key=value: ${raw}`);
    (section[pair[1]] ??= []).push(pair[2]);
  }
  return unit;
}

const unit = parseUnit(readFileSync(UNIT, 'utf8'));
const service = unit.Service ?? {};
const one = (key: string): string | undefined => service[key]?.at(-1);

afterAll(async () => {
  await killAllChildren();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('deploy/docwright.service', () => {
  it('passes systemd-analyze verify without a remark (or says why it cannot be run here)', () => {
    const which = spawnSync('sh', ['-c', 'command -v systemd-analyze'], { encoding: 'utf8' });
    if (which.status !== 0) {
      console.log(
        'systemd-analyze verify not run: systemd-analyze is not installed on this machine; the unit was only parsed',
      );
      return;
    }
    const result = spawnSync('systemd-analyze', ['verify', UNIT], { encoding: 'utf8', timeout: 20_000 });
    const remarks = result.stderr.split('\n').filter((line) => line.includes('docwright.service'));
    expect(remarks).toEqual([]);
    expect(result.status, result.stderr).toBe(0);
    // The check does catch mistakes: a misspelt hardening key is reported.
    const dir = mkdtempSync(join(tmpdir(), 'dw-unit-'));
    dirs.push(dir);
    const broken = join(dir, 'docwright.service');
    writeFileSync(broken, readFileSync(UNIT, 'utf8').replace('NoNewPrivileges=yes', 'NoNewPrivilegs=yes'));
    expect(spawnSync('systemd-analyze', ['verify', broken], { encoding: 'utf8' }).stderr).toContain(
      "Unknown key 'NoNewPrivilegs'",
    );
  });

  it('runs as its own user with its data in /var/lib/docwright and the key secret in a file, restarting on failure', () => {
    expect(unit.Unit?.After).toContain('network-online.target');
    expect(unit.Install?.WantedBy).toEqual(['multi-user.target']);
    expect(one('User')).toBe('docwright');
    expect(one('Group')).toBe('docwright');
    expect(service.Environment).toEqual(
      expect.arrayContaining(['DOCWRIGHT_HOME=/var/lib/docwright', 'DOCWRIGHT_KEYCHAIN=off']),
    );
    expect(one('StateDirectory')).toBe('docwright');
    expect(one('StateDirectoryMode')).toBe('0700');
    expect(one('UMask')).toBe('0077');
    expect(one('Restart')).toBe('on-failure');
    expect(one('KillSignal')).toBe('SIGTERM');
  });

  it('is hardened: no new privileges, read-only system but its data, private /tmp, no capabilities', () => {
    expect(one('NoNewPrivileges')).toBe('yes');
    expect(one('ProtectSystem')).toBe('strict');
    expect(one('ReadWritePaths')).toBe('/var/lib/docwright');
    expect(one('ProtectHome')).toBe('yes');
    expect(one('PrivateTmp')).toBe('yes');
    expect(one('PrivateDevices')).toBe('yes');
    expect(one('RestrictAddressFamilies')).toBe('AF_INET AF_INET6 AF_UNIX');
    expect(one('CapabilityBoundingSet')).toBe('');
    expect(service.SystemCallFilter).toEqual(['@system-service', '~@privileged @resources']);
    // V8's JIT needs writable, executable memory: this one would stop Node.
    expect(service.MemoryDenyWriteExecute).toBeUndefined();
  });

  it('starts a team server with the flags of its ExecStart', async () => {
    const exec = (one('ExecStart') ?? '').split(/\s+/);
    expect(exec.slice(0, 3)).toEqual([
      '/usr/bin/node',
      '/opt/docwright/node_modules/docwright/bin/docwright.js',
      'serve',
    ]);
    const flags = exec.slice(3);
    expect(flags).toEqual([
      '--host',
      '0.0.0.0',
      '--port',
      '47823',
      '--allow-remote',
      '--cert',
      '/etc/docwright/tls/cert.pem',
      '--key',
      '/etc/docwright/tls/key.pem',
    ]);
    // The same flags, with a test certificate, a free port and a temporary data directory.
    const dir = mkdtempSync(join(tmpdir(), 'dw-unit-'));
    dirs.push(dir);
    const pems = await generate([{ name: 'commonName', value: 'docwright.test' }], {
      keyType: 'ec',
      algorithm: 'sha256',
      extensions: [
        {
          name: 'subjectAltName',
          altNames: [
            { type: 2, value: 'docwright.test' },
            { type: 7, ip: '127.0.0.1' },
          ],
        },
      ],
    });
    writeFileSync(join(dir, 'cert.pem'), pems.cert);
    writeFileSync(join(dir, 'key.pem'), pems.private, { mode: 0o600 });
    const args = flags.map((flag) => (flag === '47823' ? '0' : flag.replace('/etc/docwright/tls', dir)));
    const home = join(dir, 'data');
    const server = await startServe(args, { env: { ...process.env, DOCWRIGHT_HOME: home, DOCWRIGHT_KEYCHAIN: 'off' } });
    expect(server.stderr()).toContain('warning: Docwright is reachable from the network');
    const agent = new Agent({ connect: { ca: pems.cert } });
    try {
      expect((await call(agent, `${server.url}/api/health`)).status).toBe(200);
    } finally {
      await agent.close();
    }
    expect(existsSync(join(home, 'secret.key'))).toBe(true);
    server.child.kill('SIGTERM');
    await server.exited;
    expect(existsSync(join(home, 'server.json'))).toBe(false);
  });
});
