/**
 * Binding a TCP surface (the standalone pages, the reference console, standalone's metrics on
 * `METRICS_ADDR`) to its address variable: one way to
 * listen, to refuse, and to name the address. A host that does not resolve, an address not on this
 * machine, a port in use or forbidden is a refused start named by the variable and the system's
 * code (`EADDRINUSE`), never a stack trace.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * `url` names the bound address as it is: the host given, or `0.0.0.0` when no host was given and
 * the listener takes every interface (`allInterfaces`; never `localhost`, which would say the
 * listener is local when the network can reach it).
 */
export type Listened = { readonly ok: true; readonly url: string; readonly allInterfaces: boolean } | { readonly ok: false };

export async function listenOnTcp(server: Server, listen: { readonly host: string | null; readonly port: number }, variable = 'LISTEN_ADDR'): Promise<Listened> {
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(listen.port, listen.host ?? undefined, () => resolve());
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    process.stderr.write(`viewer: ${variable} cannot be bound (${/^[A-Z0-9_]{1,32}$/.test(code) ? code : 'error'})\n`);
    return { ok: false };
  }
  const address = server.address() as AddressInfo;
  const allInterfaces = listen.host === null || address.address === '0.0.0.0' || address.address === '::';
  const shown = listen.host === null ? '0.0.0.0' : address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return { ok: true, url: `http://${shown}:${address.port}/`, allInterfaces };
}
