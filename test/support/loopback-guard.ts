/**
 * Preloaded into a `viewer` child by tests whose code path could reach for the network (the Azure
 * ambient chain's managed identity probes 169.254.169.254): `NODE_OPTIONS=--import=<LOOPBACK_GUARD>`
 * and `LOOPBACK_GUARD_LOG=<file>`. Every TCP connection to anything but a loopback address (or a
 * local socket) is refused before it is attempted and recorded in that file, one `host:port` a
 * line; so is every DNS lookup of a name other than `localhost`. The test then asserts the file is
 * empty: the code never tried, and could not have succeeded if it had.
 */
import { appendFileSync } from 'node:fs';
import dns from 'node:dns';
import net from 'node:net';
import { pathToFileURL } from 'node:url';

/** The `--import` specifier of this file. */
export const LOOPBACK_GUARD = pathToFileURL(import.meta.filename).href;

function loopback(host: string): boolean {
  const h = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (h === 'localhost') return true;
  if (net.isIPv4(h)) return h.startsWith('127.');
  if (net.isIPv6(h)) return h === '::1' || /^::ffff:127\./i.test(h);
  return false;
}

const logFile = process.env['LOOPBACK_GUARD_LOG'];
// Loaded by a test (to read LOOPBACK_GUARD) the module installs nothing; only a preload does.
if (logFile !== undefined) {
  const record = (what: string) => appendFileSync(logFile, `${what}\n`);

  type Connect = (this: net.Socket, ...args: unknown[]) => net.Socket;
  const connect = Object.getOwnPropertyDescriptor(net.Socket.prototype, 'connect')?.value as Connect;
  const guarded: Connect = function (...args) {
    // net.connect hands the socket its arguments already normalised, as an array.
    const first: unknown = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
    let host: string | undefined;
    let port: unknown;
    let path: unknown;
    if (typeof first === 'object' && first !== null) ({ host, port, path } = first as { host?: string; port?: unknown; path?: unknown });
    else if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) [port, host] = [first, typeof args[1] === 'string' ? args[1] : undefined];
    else path = first;
    // As net decides: a truthy `path` is a local socket, anything else goes to host:port.
    if (!path && !loopback(host ?? 'localhost')) {
      record(`connect ${String(host)}:${String(port)}`);
      process.nextTick(() => this.destroy(Object.assign(new Error('refused by the loopback guard'), { code: 'ECONNREFUSED' })));
      return this;
    }
    return connect.apply(this, args);
  };
  Object.defineProperty(net.Socket.prototype, 'connect', { value: guarded, writable: true, configurable: true });

  const refusedLookup = (name: string) => Object.assign(new Error('refused by the loopback guard'), { code: 'ENOTFOUND', hostname: name });
  const lookup = dns.lookup as (...args: unknown[]) => void;
  dns.lookup = function (...args: unknown[]) {
    const [name] = args;
    const callback = args.at(-1) as ((error: Error) => void) | undefined;
    if (typeof name === 'string' && !loopback(name) && typeof callback === 'function') {
      record(`lookup ${name}`);
      process.nextTick(() => callback(refusedLookup(name)));
      return;
    }
    lookup.apply(dns, args);
  } as typeof dns.lookup;
  const lookupPromise = dns.promises.lookup as (...args: unknown[]) => Promise<unknown>;
  dns.promises.lookup = function (...args: unknown[]) {
    const [name] = args;
    if (typeof name === 'string' && !loopback(name)) {
      record(`lookup ${name}`);
      return Promise.reject(refusedLookup(name));
    }
    return lookupPromise.apply(dns.promises, args);
  } as typeof dns.promises.lookup;
}
