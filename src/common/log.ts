/**
 * The structured logger: JSON lines through pino. Callers log fixed messages and allowlisted
 * fields only (route names, statuses, durations, revisions, stable codes, failure categories);
 * nothing from a request, the store or the configuration is logged as text.
 */
import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger } from 'pino';

export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = { level, base: { service: 'viewer' }, timestamp: pino.stdTimeFunctions.isoTime, messageKey: 'msg' };
  return destination === undefined ? pino(options) : pino(options, destination);
}
