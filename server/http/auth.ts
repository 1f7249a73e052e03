import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { hashKey, isWellFormed, keysEqual } from '../auth/keys.ts';
import { PLAN_LIMITS } from '../services.ts';
import type { Store } from '../store/store.ts';
import { FailureThrottle } from '../auth/throttle.ts';
import { ApiError } from './errors.ts';

/** Who makes a request: an API key, the desktop session (UI), or the CLI on the same machine. */
export type Principal = { kind: 'key'; keyId: string } | { kind: 'session' } | { kind: 'admin' };

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  if (x.length !== y.length) {
    timingSafeEqual(x, x);
    return false;
  }
  return timingSafeEqual(x, y);
}

/** Checks API keys (keyed hashes, constant time), UI sessions and the CLI's admin token. */
export class Authenticator {
  private readonly sessions = new Set<string>();
  private readonly store: Store;
  /** Secret of the keyed hashes (HMAC-SHA256) of API keys. */
  readonly keySecret: Buffer;
  private readonly uiToken: string;
  private readonly adminToken: string | undefined;
  private readonly now: () => Date;
  /** Failed authentications per client: after 10 in a minute, 429 (see FailureThrottle). */
  private readonly throttle = new FailureThrottle();
  /** Keys that authenticated during this run: they keep working while their client is blocked. */
  private readonly proven = new Set<string>();

  constructor(options: { store: Store; secret: Buffer; uiToken: string; adminToken?: string; now: () => Date }) {
    this.store = options.store;
    this.keySecret = options.secret;
    this.uiToken = options.uiToken;
    this.adminToken = options.adminToken;
    this.now = options.now;
  }

  /** Exchanges this launch's UI token for a session id (the cookie's value); a wrong token counts as a failure. */
  openSession(token: string, client = 'local'): string | undefined {
    if (!sameSecret(token, this.uiToken)) throw this.failed(client, new ApiError('unauthorized', 'This link is not valid for the running server; open the one it printed.'));
    const session = randomBytes(32).toString('base64url');
    this.sessions.add(session);
    return session;
  }

  private session(request: FastifyRequest): boolean {
    const id = request.cookies?.dw_session;
    if (!id) return false;
    for (const s of this.sessions) if (sameSecret(id, s)) return true;
    return false;
  }

  private admin(request: FastifyRequest): boolean {
    const header = request.headers['x-docwright-admin'];
    return this.adminToken !== undefined && typeof header === 'string' && sameSecret(header, this.adminToken);
  }

  /** 429 too_many_requests with Retry-After when the client has failed too often, else undefined. */
  private blocked(client: string): ApiError | undefined {
    const wait = this.throttle.blockedFor(client, this.now().getTime());
    if (wait === 0) return undefined;
    return new ApiError('too_many_requests', `Too many failed authentication attempts from this client; retry in ${wait} s.`, { 'Retry-After': String(wait) });
  }

  /** Records a failed authentication; the error to answer is `error`, or 429 once the client is blocked. */
  private failed(client: string, error: ApiError): ApiError {
    const blocked = this.blocked(client);
    this.throttle.fail(client, this.now().getTime());
    return blocked ?? error;
  }

  /** A wrong CLI admin token counts as a failure (a stale session cookie does not: browsers resend it after a restart). */
  private wrongAdmin(request: FastifyRequest): boolean {
    return request.headers['x-docwright-admin'] !== undefined && !this.admin(request);
  }

  /** The public API: a Bearer key (any plan with API access), or the app's own session or the CLI. */
  async forApi(request: FastifyRequest, options: { anyPlan?: boolean } = {}): Promise<Principal> {
    const header = request.headers.authorization;
    if (header === undefined || header.trim() === '') {
      if (!options.anyPlan && this.session(request)) return { kind: 'session' };
      if (!options.anyPlan && this.admin(request)) return { kind: 'admin' };
      if (this.wrongAdmin(request)) throw this.failed(request.ip, new ApiError('missing_api_key'));
      throw new ApiError('missing_api_key');
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const key = match?.[1];
    if (!key || !isWellFormed(key)) throw this.failed(request.ip, new ApiError('invalid_api_key'));
    const hash = hashKey(this.keySecret, key);
    const found = this.store.matchKey((stored) => keysEqual(hash, stored));
    if (!found || found.revoked) throw this.failed(request.ip, new ApiError('invalid_api_key'));
    // A blocked client keeps the keys it has proven; any other key, right or wrong, gets the same 429.
    const blocked = this.proven.has(found.id) ? undefined : this.blocked(request.ip);
    if (blocked) throw blocked;
    this.proven.add(found.id);
    if (!options.anyPlan && !PLAN_LIMITS[this.store.settings().plan].api) throw new ApiError('api_access_denied');
    await this.store.touchKey(found.id, this.now());
    return { kind: 'key', keyId: found.id };
  }

  /**
   * MCP (`/mcp`): a Bearer key on every plan (SPEC.md: MCP access on all plans, Solo included), or the CLI's admin
   * token, with which `docwright mcp` (stdio, on this machine) reaches the running server when no key is given.
   */
  async forMcp(request: FastifyRequest): Promise<Principal> {
    const header = request.headers.authorization;
    if ((header === undefined || header.trim() === '') && this.admin(request)) return { kind: 'admin' };
    return this.forApi(request, { anyPlan: true });
  }

  /** The settings area: only the owner of the desktop session, or the CLI on this machine; never an API key. */
  forSettings(request: FastifyRequest): Principal {
    if (this.session(request)) return { kind: 'session' };
    if (this.admin(request)) return { kind: 'admin' };
    if (this.wrongAdmin(request)) throw this.failed(request.ip, new ApiError('unauthorized'));
    throw new ApiError('unauthorized');
  }
}
