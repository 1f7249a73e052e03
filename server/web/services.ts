import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.ts';

// What every web surface on the app (the REST API, MCP over HTTP) reads from it: the services they share. The HTTP
// app decorates itself with them (http/app.ts); a surface mounted on it (server/app.ts) reaches them here.

declare module 'fastify' {
  interface FastifyInstance {
    /** The operations every surface shares (server/services.ts). */
    services: Services;
  }
}

/** The services of the app a surface is mounted on. */
export function servicesOf(app: FastifyInstance): Services {
  return app.services;
}
