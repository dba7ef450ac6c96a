/**
 * Graceful shutdown of an HTTP server, shared by both surfaces: stop accepting, let requests in
 * flight finish, close idle keep-alive connections now and everything left after the grace period.
 */
import type { Server } from 'node:http';

export function closeGracefully(server: Server, graceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
    setTimeout(() => {
      server.closeAllConnections();
      resolve();
    }, graceMs).unref();
  });
}
