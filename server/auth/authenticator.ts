import { randomBytes, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../errors.ts';
import type { Plan } from '../store/database.ts';
import type { Store } from '../store/store.ts';
import { hashKey, isWellFormed, keysEqual } from './keys.ts';
import { FailureThrottle } from './throttle.ts';

/**
 * What a route needs, declared by the route itself (server/web/access.ts reads it from the matched route):
 * - `public`: nothing (the UI's files, health, the session link exchange, the 404 answer);
 * - `api`: the public API — an API key on a plan with API access, or the owner (the app's session, the CLI);
 * - `owner`: the settings area — the app's session or the CLI's admin token, never an API key;
 * - `mcp`: MCP — an API key on any plan (MCP is on every plan), or the CLI's admin token (`docwright mcp`).
 */
export type Access = 'public' | 'api' | 'owner' | 'mcp';
export const ACCESS_LEVELS: readonly Access[] = ['public', 'api', 'owner', 'mcp'];

/** Who makes a request: an API key, the desktop session (UI), or the CLI on the same machine. */
export type Principal = { kind: 'key'; keyId: string } | { kind: 'session' } | { kind: 'admin' };

/** What a request presents, taken from the transport (headers) by the caller. */
export interface Credentials {
  /** The Authorization header, as sent. */
  authorization?: string | undefined;
  /** The CLI's admin token (`X-Docwright-Admin`). */
  admin?: string | undefined;
  /** The UI's session id (`X-Docwright-Session`; never a cookie, which browsers hand to every port of a host). */
  session?: string | undefined;
}

/** How long the session link of a launch stays valid if nobody opens it. */
export const UI_LINK_TTL_MS = 5 * 60_000;

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  if (x.length !== y.length) {
    timingSafeEqual(x, x);
    return false;
  }
  return timingSafeEqual(x, y);
}

/** Whether a peer address is this computer (127.0.0.0/8, ::1, or IPv4 loopback mapped into IPv6). */
function isLoopbackPeer(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4.startsWith('127.') || address === '::1';
}

/** The plans whose keys reach the public API (services.ts PLAN_LIMITS, passed in to keep auth below services). */
export type ApiPlans = (plan: Plan) => boolean;

/**
 * The access decision: API keys (keyed hashes, constant time), UI sessions (a one-time, short-lived link exchanged
 * for a session), the CLI's admin token, and the failed-authentication throttle. Knows nothing of HTTP.
 */
export class Authenticator {
  private readonly sessions = new Set<string>();
  private readonly store: Store;
  /** Secret of the keyed hashes (HMAC-SHA256) of API keys. */
  readonly keySecret: Buffer;
  /** The session link's token and when it stops being valid; undefined once used or expired. */
  private link: { token: string; expires: number } | undefined;
  private readonly adminToken: string | undefined;
  private readonly now: () => Date;
  private readonly apiPlan: ApiPlans;
  /** A team server: the session link opens the app only from this computer. */
  private readonly team: boolean;
  /** Failed authentications (server/auth/throttle.ts): a valid credential is never throttled. */
  private readonly throttle: FailureThrottle;

  constructor(options: {
    store: Store;
    secret: Buffer;
    uiToken: string;
    adminToken?: string | undefined;
    team?: boolean;
    now: () => Date;
    apiPlan: ApiPlans;
    throttle?: FailureThrottle;
  }) {
    this.team = options.team ?? false;
    this.store = options.store;
    this.keySecret = options.secret;
    this.adminToken = options.adminToken;
    this.now = options.now;
    this.apiPlan = options.apiPlan;
    this.throttle = options.throttle ?? new FailureThrottle();
    this.link = { token: options.uiToken, expires: this.now().getTime() + UI_LINK_TTL_MS };
  }

  /** A new session link token (the owner asked for one: the first was used or expired); the previous one dies. */
  newLinkToken(): string {
    const token = randomBytes(32).toString('base64url');
    this.link = { token, expires: this.now().getTime() + UI_LINK_TTL_MS };
    return token;
  }

  /**
   * Exchanges the session link's token for a session id (the page's `X-Docwright-Session`), once: the token dies on
   * use, and after UI_LINK_TTL_MS unused. A wrong, used or expired token counts as a failure. On a team server only a peer on
   * this computer (`peer`, its address) may use it, and a refusal leaves the link valid.
   */
  openSession(token: string, peer: string | undefined): string {
    if (this.team && !isLoopbackPeer(peer)) {
      throw new ApiError(
        'forbidden',
        "The session link of a team server opens the app only on the server's own computer; other computers use API keys.",
      );
    }
    const link = this.link;
    const valid = link !== undefined && sameSecret(token, link.token) && this.now().getTime() < link.expires;
    if (!valid)
      throw this.failed(
        'link',
        new ApiError(
          'unauthorized',
          'This link is not valid (any more) for the running server: each link opens the app once, within 5 minutes. Get a new one with `docwright open`.',
        ),
      );
    this.link = undefined;
    const session = randomBytes(32).toString('base64url');
    this.sessions.add(session);
    return session;
  }

  private session(credentials: Credentials): boolean {
    const id = credentials.session;
    if (!id) return false;
    for (const s of this.sessions) if (sameSecret(id, s)) return true;
    return false;
  }

  private admin(credentials: Credentials): boolean {
    const token = credentials.admin;
    return this.adminToken !== undefined && token !== undefined && sameSecret(token, this.adminToken);
  }

  /** Records a failed authentication: `error`, or 429 with Retry-After once the throttle says so. */
  private failed(prefix: string, error: ApiError): ApiError {
    const wait = this.throttle.fail(prefix, this.now().getTime());
    if (wait === 0) return error;
    return new ApiError('too_many_requests', `Too many failed authentication attempts; retry in ${wait} s.`, {
      'Retry-After': String(wait),
    });
  }

  /** A wrong CLI admin token counts as a failure (a stale session id does not: an open tab resends it after a restart). */
  private wrongAdmin(credentials: Credentials, error: ApiError): ApiError {
    if (credentials.admin === undefined || this.admin(credentials)) return error;
    return this.failed('admin', error);
  }

  /** A Bearer key, checked before anything else: a key that verifies is never throttled. */
  private async key(header: string, anyPlan: boolean): Promise<Principal> {
    const key = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
    // The bucket is named by the first characters presented (a key's display prefix is 10), never the whole secret.
    const prefix = `key:${(key ?? header).slice(0, 10)}`;
    if (!key || !isWellFormed(key)) throw this.failed(prefix, new ApiError('invalid_api_key'));
    const hash = hashKey(this.keySecret, key);
    const found = this.store.matchKey((stored) => keysEqual(hash, stored));
    if (!found || found.revoked) throw this.failed(prefix, new ApiError('invalid_api_key'));
    if (!anyPlan && !this.apiPlan(this.store.settings().plan)) throw new ApiError('api_access_denied');
    await this.store.touchKey(found.id, this.now());
    return { kind: 'key', keyId: found.id };
  }

  /** The decision for a route's declared access: who is asking, or an ApiError (401, 403, 429). */
  async authorize(access: Access, credentials: Credentials): Promise<Principal | null> {
    if (access === 'public') return null;
    const header = credentials.authorization;
    const noKey = header === undefined || header.trim() === '';
    if (access === 'owner') {
      if (this.session(credentials)) return { kind: 'session' };
      if (this.admin(credentials)) return { kind: 'admin' };
      throw this.wrongAdmin(credentials, new ApiError('unauthorized'));
    }
    if (access === 'mcp') {
      if (noKey && this.admin(credentials)) return { kind: 'admin' };
      if (noKey) throw this.wrongAdmin(credentials, new ApiError('missing_api_key'));
      return this.key(header, true);
    }
    if (noKey) {
      if (this.session(credentials)) return { kind: 'session' };
      if (this.admin(credentials)) return { kind: 'admin' };
      throw this.wrongAdmin(credentials, new ApiError('missing_api_key'));
    }
    return this.key(header, false);
  }
}
