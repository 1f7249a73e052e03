// Issue 12: `serve --host 127.0.0.2` started, then answered 403 "Host not allowed" to its own address (the bound
// address was allowed only when not loopback). Any address the server listens on is an allowed Host.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { allowedHostNames } from '../../server/http/listen.ts';
import { startServer, type RunningServer } from '../../server/serve.ts';
import { rawRequest } from './raw-http.ts';

const dirs: string[] = [];
const servers: RunningServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('a server bound to a loopback address other than 127.0.0.1', () => {
  it('answers to its own address (a real server on 127.0.0.2)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dw-bound-'));
    dirs.push(dir);
    const server = await startServer({ dataDir: dir, host: '127.0.0.2', http: true, port: 0 });
    servers.push(server);
    expect(server.discovery.url).toBe(`http://127.0.0.2:${server.discovery.port}`);
    const health = await rawRequest({
      host: '127.0.0.2',
      port: server.discovery.port,
      method: 'GET',
      target: '/api/health',
    });
    expect(health.status, health.body).toBe(200);
    const settings = await rawRequest({
      host: '127.0.0.2',
      port: server.discovery.port,
      method: 'GET',
      target: '/api/settings',
      headers: { 'x-docwright-admin': server.adminToken },
    });
    expect(settings.status, settings.body).toBe(200);
    // Still no other name: DNS rebinding stays refused.
    const rebound = await rawRequest({
      host: '127.0.0.2',
      port: server.discovery.port,
      method: 'GET',
      target: '/api/health',
      headers: { host: `evil.example:${server.discovery.port}` },
    });
    expect(rebound.status).toBe(403);
  });

  it('allowedHostNames holds every bound address, loopback or not, and no wildcard', () => {
    expect(allowedHostNames({ host: '127.0.0.2' })).toContain('127.0.0.2');
    expect(allowedHostNames({ host: '::1' })).toContain('[::1]');
    expect(allowedHostNames({ host: '192.168.1.5' })).toContain('192.168.1.5');
    expect(allowedHostNames({ host: '0.0.0.0' })).not.toContain('0.0.0.0');
  });
});
