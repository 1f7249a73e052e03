// Shared by the policy tests: temporary folders, a policy file written for real, and calls to a running server as
// the CLI makes them (the admin token the server wrote into its data directory) or as an API client (a key).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Agent } from 'undici';
import { call, trustingAgent, type HttpResult } from '../helpers/docwright-process.ts';

const dirs: string[] = [];

/** A fresh temporary folder, removed by `removeTempDirs`. */
export function tempDir(prefix = 'dw-policy-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Writes `policy` (an object, or raw text) as policy.json in a new folder; returns its path. */
export function writePolicy(policy: unknown, dir = tempDir()): string {
  const path = join(dir, 'policy.json');
  writeFileSync(path, typeof policy === 'string' ? policy : JSON.stringify(policy, null, 2));
  return path;
}

/** The environment of a docwright child process with this data directory and policy. */
export function envFor(home: string, policy: string): NodeJS.ProcessEnv {
  return { ...process.env, DOCWRIGHT_HOME: home, DOCWRIGHT_POLICY: policy, DOCWRIGHT_KEYCHAIN: 'off' };
}

/** A client of the server running on `home`, found through its discovery file as the CLI finds it. */
export function clientOf(home: string): {
  url: string;
  agent: Agent | undefined;
  admin: (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown) => Promise<HttpResult>;
  api: (key: string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown) => Promise<HttpResult>;
} {
  const discovery = JSON.parse(readFileSync(join(home, 'server.json'), 'utf8')) as {
    url: string;
    cert_path: string | null;
  };
  const token = readFileSync(join(home, 'admin.token'), 'utf8').trim();
  const agent = discovery.cert_path ? trustingAgent(discovery.cert_path) : undefined;
  return {
    url: discovery.url,
    agent,
    admin: (method, path, body) =>
      call(agent, `${discovery.url}${path}`, {
        method,
        headers: { 'x-docwright-admin': token },
        ...(body === undefined ? {} : { body }),
      }),
    api: (key, method, path, body) =>
      call(agent, `${discovery.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}` },
        ...(body === undefined ? {} : { body }),
      }),
  };
}
