import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import {
  ACCESS_LEVELS,
  type Access,
  type Authenticator,
  type Credentials,
  type Principal,
} from '../auth/authenticator.ts';
import { ApiError } from '../errors.ts';

// Access is a property of each route: every route declares `config: { access }` (server/auth/authenticator.ts says
// what each level admits), and one hook asks the Authenticator about the route the router matched. No decision
// looks at the request's URL string, so no spelling of a path (percent-encoding, `//`, absolute form) can reach a
// route without passing its own check.

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call this route (required on every route: start-up fails without it). */
    access?: Access;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

/** Route options that declare an access level; spread into a route's options. */
export function access(level: Access): { config: { access: Access } } {
  return { config: { access: level } };
}

/** Thrown at start-up for a route without a (valid) access declaration. */
export class UndeclaredAccessError extends Error {
  override name = 'UndeclaredAccessError';
}

function declared(route: RouteOptions): boolean {
  const level: unknown = route.config?.access;
  return ACCESS_LEVELS.some((l) => l === level);
}

function describe(route: RouteOptions): string {
  return `${Array.isArray(route.method) ? route.method.join(',') : route.method} ${route.url}`;
}

/**
 * Installs the access check: records every route as it is added (a plugin may still declare the access of the
 * routes it adds in its own onRoute hook, as the UI's static files do), `check()` fails on any route that declares
 * none (buildApp calls it, and it runs again when the app gets ready), and the onRequest hook authorises each
 * request for its matched route; the 404 answer is public.
 */
export function installAccess(
  app: FastifyInstance,
  authenticator: Authenticator,
  credentials: (request: FastifyRequest) => Credentials,
): { check(): void } {
  const routes: RouteOptions[] = [];
  app.decorateRequest('principal', null);
  app.addHook('onRoute', (route) => {
    routes.push(route);
  });
  const check = () => {
    const missing = routes.filter((r) => !declared(r));
    if (missing.length > 0) {
      throw new UndeclaredAccessError(
        `Every route must declare its access (config.access: ${ACCESS_LEVELS.join(' | ')}); these do not: ${missing.map(describe).join('; ')}.`,
      );
    }
  };
  app.addHook('onReady', async () => check());
  app.addHook('onRequest', async (request) => {
    if (request.is404) return;
    const level = request.routeOptions.config.access;
    // Fail closed: a route that somehow declares nothing is refused, never served.
    if (level === undefined) throw new ApiError('internal_error');
    request.principal = await authenticator.authorize(level, credentials(request));
  });
  return { check };
}
