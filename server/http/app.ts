import { randomBytes } from 'node:crypto';
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyPluginAsync,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import multipart from '@fastify/multipart';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { TEMPLATE_LIMIT } from '../limits.ts';
import { PLAN_LIMITS, Services } from '../services.ts';
import type { PoolOptions } from '../convert-pool/pool.ts';
import type { Policy } from '../policy/index.ts';
import type { Store } from '../store/store.ts';
import { Authenticator, type Credentials } from '../auth/authenticator.ts';
import { ApiError, envelope, ERRORS, type ErrorCode } from '../errors.ts';
import { access, installAccess } from '../web/access.ts';
import '../web/services.ts';
import { answerWithLinger, installBodyLimits } from './body-limits.ts';
import {
  fastifyServerOptions,
  loggerOptions,
  nodeServerOptions,
  refuseStrayMultipart,
  TIMEOUTS,
  type Timeouts,
} from './hardening.ts';
import { conversionRoutes } from './routes/conversions.ts';
import { convertRoutes } from './routes/convert.ts';
import { apiKeyRoutes } from './routes/api-keys.ts';
import { mappingRoutes } from './routes/mappings.ts';
import { cliConvertRoutes } from './routes/cli-convert.ts';
import { settingsRoutes, type ServerInfo } from './routes/settings.ts';
import { templateRoutes } from './routes/templates.ts';
import { uiRoutes } from './routes/ui.ts';
import { SHARED_SCHEMAS } from '../schemas/index.ts';
import { NAME_PATTERN, nameRule, TEXT_PATTERN } from '../convert/names.ts';

/** Largest JSON body: 10 MiB of markdown plus room for the other fields. Larger gets 413. */
export const BODY_LIMIT = 10 * 1024 * 1024 + 64 * 1024;

export interface AppOptions {
  store: Store;
  /** Secret of the keyed hashes of API keys (from the keychain). */
  secret: Buffer;
  /** Token of this launch that a browser exchanges for a session id (`/auth/session?token=`). */
  uiToken?: string;
  /** Token the CLI sends (`X-Docwright-Admin`) to reach the settings area of a running server. */
  adminToken?: string;
  /** Host names (without port) accepted in the Host header; DNS rebinding defence. */
  allowedHosts?: string[];
  /** The server's port, for the Host and Origin checks. */
  port?: number;
  /** Whether the server speaks HTTPS (for the Origin check). */
  https?: boolean;
  now?: () => Date;
  logger?: boolean;
  /** Certificate and key: the app then serves HTTPS when it listens. */
  httpsOptions?: { cert: string; key: string };
  /** Conversion workers: number, time and memory limits (server/convert-pool/pool.ts). */
  convert?: PoolOptions;
  /** Folder of the built UI served at `/` (default: the package's dist/ui); false serves none. */
  uiDir?: string | false;
  /** The certificate's fingerprint and path, shown on the settings page. */
  certificate?: { fingerprint: string; path: string };
  /** The organisation's policy (server/policy/): managed settings, applied to the store's settings. */
  policy?: Policy | null;
  /** A team server (listening beyond loopback): the session link is then accepted only from this computer. */
  team?: boolean;
  /** HTTP timeouts (default TIMEOUTS, server/http/hardening.ts); tests shorten them. */
  timeouts?: Partial<Timeouts>;
}

declare module 'fastify' {
  interface FastifyInstance {
    authenticator: Authenticator;
    /** Where this server listens, for the settings page. */
    serverInfo(): ServerInfo;
  }
}

export type App = FastifyInstance;

/**
 * Builds the HTTP application, ready for `inject` or `listen`; never listens itself. `surfaces` are other surfaces
 * on the same services, registered after the API's routes under the same guards and access checks (server/app.ts
 * gives MCP over HTTP): this layer knows none of them.
 */
export async function buildHttpApp(
  options: AppOptions,
  surfaces: readonly FastifyPluginAsync[] = [],
): Promise<FastifyInstance> {
  const now = options.now ?? (() => new Date());
  const timeouts: Timeouts = { ...TIMEOUTS, ...options.timeouts };
  const app = Fastify({
    ...(options.httpsOptions
      ? { https: { ...options.httpsOptions, ...nodeServerOptions(timeouts) } }
      : { http: nodeServerOptions(timeouts) }),
    ...fastifyServerOptions(timeouts),
    bodyLimit: BODY_LIMIT,
    logger: options.logger ? loggerOptions() : false,
    routerOptions: { maxParamLength: 200 },
    // What Fastify refuses before any route (or hook) runs answers in the envelope too: a path that is not valid
    // percent-encoding (400), a path parameter past maxParamLength (no id is that long: 404).
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) =>
      error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? send(reply, 'not_found', `No route ${request.method} with a path parameter that long.`)
        : send(reply, 'bad_request', 'The request path is not valid (its percent-encoding does not decode).'),
    ajv: { customOptions: { allErrors: false, removeAdditional: false, coerceTypes: false }, plugins: [] },
  } as Parameters<typeof Fastify>[0]).withTypeProvider<TypeBoxTypeProvider>() as unknown as FastifyInstance;

  const services = new Services(options.store, now, options.convert, options.policy ?? null);
  app.addHook('onClose', () => services.close());
  const authenticator = new Authenticator({
    store: options.store,
    secret: options.secret,
    uiToken: options.uiToken ?? randomBytes(32).toString('base64url'),
    adminToken: options.adminToken,
    team: options.team ?? false,
    now,
    apiPlan: (plan) => PLAN_LIMITS[plan].api,
  });
  app.decorate('services', services);
  app.decorate('authenticator', authenticator);
  app.decorate('serverInfo', (): ServerInfo => {
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : null;
    const https = Boolean(options.httpsOptions);
    // A team server bound to every interface (0.0.0.0, ::) is shown at its loopback address, one bound to an address at that.
    const bound = typeof address === 'object' && address ? address.address : '127.0.0.1';
    const host =
      bound === '0.0.0.0' ? '127.0.0.1' : bound === '::' ? '[::1]' : bound.includes(':') ? `[${bound}]` : bound;
    return {
      url: port === null ? null : `${https ? 'https' : 'http'}://${host}:${port}`,
      port,
      https,
      fingerprint: options.certificate?.fingerprint ?? null,
      cert_path: options.certificate?.path ?? null,
    };
  });

  // JSON and multipart only: any other Content-Type gets 415 (Fastify would otherwise accept text/plain).
  app.removeContentTypeParser('text/plain');
  await app.register(multipart, {
    limits: { fileSize: TEMPLATE_LIMIT, files: 1, fields: 10, fieldSize: 64 * 1024, parts: 20 },
  });
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Docwright local API',
        version: '1.0.0',
        description: 'Markdown to .docx through stored templates and style mappings, on 127.0.0.1.',
      },
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'A Docwright API key (dw_…)' } },
      },
      security: [{ bearer: [] }],
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  });
  for (const schema of SHARED_SCHEMAS) app.addSchema(schema);

  // The listening port: given, or read from the socket once it listens (port 0 in tests); unknown under inject.
  const serverPort = (): number | undefined => {
    if (options.port) return options.port;
    const address = app.server.address();
    return typeof address === 'object' && address ? address.port : undefined;
  };
  installBodyLimits(app);
  installGuards(app, options, serverPort);
  const declarations = installAccess(app, authenticator, (request): Credentials => {
    const admin = request.headers['x-docwright-admin'];
    // The UI's session travels only in its own header (never a cookie: browsers hand cookies to every port of a host).
    const session = request.headers[SESSION_HEADER];
    return {
      authorization: request.headers.authorization,
      admin: typeof admin === 'string' ? admin : undefined,
      session: typeof session === 'string' ? session : undefined,
    };
  });
  app.addHook('preValidation', refuseStrayMultipart);
  installErrorHandling(app);

  await app.register(convertRoutes);
  await app.register(conversionRoutes);
  await app.register(templateRoutes);
  await app.register(mappingRoutes);
  await app.register(apiKeyRoutes);
  await app.register(settingsRoutes);
  await app.register(cliConvertRoutes);
  for (const surface of surfaces) await app.register(surface);
  await app.register(uiRoutes, { uiDir: options.uiDir });

  app.get('/api/v1/openapi.json', { schema: { hide: true }, ...access('api') }, async () => app.swagger());
  app.get('/api/health', { schema: { hide: true }, ...access('public') }, async () => ({
    status: 'ok',
    service: 'docwright',
  }));
  // The session link: its token is checked here (once, within minutes), so the route itself is public.
  app.get('/auth/session', { schema: { hide: true }, ...access('public') }, async (request, reply) => {
    // Secrets inside: neither the redirect (the session id) nor the refusal may be kept by any cache.
    reply.header('Cache-Control', 'no-store');
    const token = (request.query as { token?: unknown }).token;
    let session: string;
    try {
      session = authenticator.openSession(typeof token === 'string' ? token : '', request.socket.remoteAddress);
    } catch (error) {
      // A person who clicked an old link gets a page in words; scripts keep the JSON envelope.
      if (error instanceof ApiError && (request.headers.accept ?? '').includes('text/html')) {
        return reply
          .status(ERRORS[error.code].status)
          .type('text/html; charset=utf-8')
          .send(sessionRefusedPage(error.message));
      }
      throw error;
    }
    // The id goes to the page in the fragment (never sent to a server, never a cookie); the page keeps it in
    // sessionStorage (per origin, so per port) and sends it as X-Docwright-Session.
    return reply.redirect(`/#session=${session}`, 303);
  });
  // A new session link for the owner (`docwright open`): the one printed at start works once, within minutes.
  app.post('/api/settings/session-link', { schema: { hide: true }, ...access('owner') }, async (_request, reply) => {
    reply.header('Cache-Control', 'no-store');
    return { path: `/auth/session?token=${authenticator.newLinkToken()}` };
  });
  declarations.check();
  return app;
}

/**
 * The header that carries the UI's session id (lower case, as Node gives header names). A custom header, not a
 * cookie: a browser sends cookies to every port of a host (a hostile local server could collect them) and with
 * cross-site requests; it sends this header only when Docwright's own page adds it.
 */
export const SESSION_HEADER = 'x-docwright-session';

/** Splits a Host header into a lower-case host name (IPv6 in brackets) and its port, if any. */
function splitHost(header: string | undefined): { host: string; port: number | undefined } | undefined {
  if (!header) return undefined;
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:\s]+)(?::(\d{1,5}))?$/.exec(header.trim());
  if (!m?.[1]) return undefined;
  return { host: m[1].toLowerCase(), port: m[2] === undefined ? undefined : Number(m[2]) };
}

/**
 * Host allow-list (DNS rebinding) and Origin check (no CORS: only the server's own origin, same scheme, host and
 * port, may call it from a browser; another local web app on another port may not), for every request; then
 * authentication, by each route's declared access (./access.ts).
 */
function installGuards(app: FastifyInstance, options: AppOptions, serverPort: () => number | undefined): void {
  const hosts = new Set((options.allowedHosts ?? ['127.0.0.1', 'localhost', '[::1]']).map((h) => h.toLowerCase()));
  const scheme = options.https ? 'https:' : 'http:';
  app.addHook('onRequest', async (request) => {
    const port = serverPort();
    const defaultPort = options.https ? 443 : 80;
    const host = splitHost(request.headers.host);
    if (!host || !hosts.has(host.host) || (port !== undefined && (host.port ?? defaultPort) !== port)) {
      throw new ApiError(
        'forbidden',
        'Host not allowed: this server answers only to its own address (DNS rebinding protection).',
      );
    }
    const origin = request.headers.origin;
    if (origin !== undefined) {
      let allowed: boolean;
      try {
        const url = new URL(origin);
        const originPort = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
        allowed =
          hosts.has(url.host.replace(/:\d+$/, '').toLowerCase()) &&
          (port === undefined
            ? url.protocol === scheme || !options.https
            : url.protocol === scheme && originPort === port);
      } catch {
        allowed = false;
      }
      if (!allowed) throw new ApiError('forbidden', 'Cross-origin requests are not allowed.');
    }
    if (request.headers['sec-fetch-site'] === 'cross-site')
      throw new ApiError('forbidden', 'Cross-site requests are not allowed.');
  });
}

/** Field path of a validation error, e.g. `markdown` or `rules.heading.7`. */
function fieldOf(error: FastifyError): string {
  const first = error.validation?.[0];
  if (!first) return 'body';
  const params = first.params;
  const path = first.instancePath.replace(/^\//, '').split('/').filter(Boolean);
  const extra = (params.missingProperty ?? params.additionalProperty) as string | undefined;
  if (extra) path.push(extra);
  return path.join('.') || (error.validationContext ?? 'body');
}

/** The envelope's message of a validation error (JSON bodies, and template upload fields: routes/templates.ts). */
function validationMessage(error: FastifyError): string {
  const first = error.validation?.[0];
  const field = fieldOf(error);
  if (!first) return `${field}: invalid`;
  const params = first.params;
  switch (first.keyword) {
    case 'required':
      return `${field} is required`;
    case 'additionalProperties':
      return `${field} is not a known field`;
    case 'format':
      return `${field} must be a valid ${String(params.format)}`;
    case 'minLength':
      return `${field} must have at least ${String(params.limit)} character${params.limit === 1 ? '' : 's'}`;
    case 'pattern':
      if (params.pattern === NAME_PATTERN || params.pattern === TEXT_PATTERN) return nameRule(field);
      return `${field} ${first.message ?? 'is invalid'}`;
    case 'const':
    case 'enum':
    case 'anyOf':
      return `${field} has an unknown value${field === 'response_format' ? '; use "binary" or "json"' : ''}`;
    default:
      return `${field} ${first.message ?? 'is invalid'}`;
  }
}

function send(reply: FastifyReply, code: ErrorCode, message: string, headers: Record<string, string> = {}) {
  reply.headers(headers);
  const status = ERRORS[code].status;
  // Any error answered before the body's end (a 413, or a 401 before it was read): a lingering close, so the client,
  // still sending, reads the answer and the connection is held and read from no longer than LINGER's bounds.
  if (answerWithLinger(reply, status, JSON.stringify(envelope(code, message)))) return reply;
  return reply.status(status).type('application/json; charset=utf-8').send(envelope(code, message));
}

/** One error handler: everything becomes the envelope; 5xx messages never leak internals. */
function installErrorHandling(app: FastifyInstance): void {
  app.setNotFoundHandler((request: FastifyRequest, reply) =>
    send(reply, 'not_found', `No route ${request.method} ${String(request.url.split('?')[0])}.`),
  );
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof ApiError) return send(reply, error.code, error.message, error.headers);
    if (error.validation) return send(reply, 'validation_error', validationMessage(error));
    switch (error.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
      case 'FST_REQ_FILE_TOO_LARGE':
        return send(
          reply,
          'payload_too_large',
          `The request body is larger than the limit (${Math.round(BODY_LIMIT / 1024 / 1024)} MB of JSON, ${TEMPLATE_LIMIT / 1024 / 1024} MB for a template).`,
        );
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return send(
          reply,
          'unsupported_media_type',
          `Content-Type ${request.headers['content-type'] ?? '(none)'} is not accepted here; send application/json${request.routeOptions.url?.includes('templates') ? ' or multipart/form-data' : ''}.`,
        );
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return send(reply, 'bad_request', 'The request body is empty; send a JSON object.');
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return send(
          reply,
          'bad_request',
          `Malformed JSON in the request body: ${error.message.replace(/^Body is not valid JSON but content-type is set to 'application\/json'$/, 'it does not parse')}`,
        );
      case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
        return send(reply, 'unsupported_media_type', 'Send the template as multipart/form-data with a "file" field.');
      default:
        break;
    }
    if (error instanceof SyntaxError && (error as { statusCode?: number }).statusCode === 400) {
      return send(reply, 'bad_request', `Malformed JSON in the request body: ${error.message}`);
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500)
      return send(
        reply,
        status === 404
          ? 'not_found'
          : status === 413
            ? 'payload_too_large'
            : status === 415
              ? 'unsupported_media_type'
              : 'bad_request',
        error.message,
      );
    request.log.error({ err: error }, 'internal error');
    return send(reply, 'internal_error', ERRORS.internal_error.message);
  });
}

/**
 * The page a browser gets for a used, expired or wrong session link: the refusal's own sentence (its `command` in
 * code type), what else to try, in the app's fonts and colours, light or dark.
 */
function sessionRefusedPage(message: string): string {
  const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const text = escape(message).replace(/`([^`]+)`/g, '<code>$1</code>');
  const style = [
    ':root{color-scheme:light dark;--bg:#f6f7f9;--surface:#fff;--text:#1b1f24;--muted:#4f5863;--border:#cdd3da}',
    '@media (prefers-color-scheme:dark){:root{--bg:#16191d;--surface:#1f2328;--text:#e8eaed;--muted:#aab2bc;--border:#3a414a}}',
    "body{margin:0;background:var(--bg);color:var(--text);font:15px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica Neue',Arial,sans-serif}",
    'main{max-width:36rem;margin:3rem auto;padding:1.25rem 1.5rem;background:var(--surface);border:1px solid var(--border);border-radius:8px}',
    'h1{font-size:1.35rem;line-height:1.25;margin:0 0 .75rem}p{margin:0 0 .75rem}.muted{color:var(--muted)}',
    "code{font-family:ui-monospace,'Cascadia Mono',Consolas,'DejaVu Sans Mono',monospace;font-size:.9em}",
  ].join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>Docwright: link not valid</title><style>${style}</style></head><body><main><h1>This link does not open Docwright</h1><p>${text}</p><p class="muted">In a checkout, run <code>npx docwright open</code>; or start the Docwright desktop app.</p></main></body></html>`;
}
