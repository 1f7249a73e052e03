import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * Turns the connection's idle timer off for a request that waits on a conversion (the pool bounds that wait: its time
 * limit and its queue), so the server's connection timeout does not cut it; returns the function that turns it back
 * on. Requests injected in tests have a mock socket without timers.
 */
export function holdConnection(app: FastifyInstance, request: FastifyRequest): () => void {
  const socket = request.raw.socket;
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- injected requests' mock socket (above)
  if (typeof socket?.setTimeout !== 'function') return () => undefined;
  const idleTimeout = app.server.timeout;
  socket.setTimeout(0);
  let restored = false;
  return () => {
    if (restored) return;
    restored = true;
    if (!socket.destroyed) socket.setTimeout(idleTimeout);
  };
}
