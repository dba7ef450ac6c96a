/**
 * A reverse proxy that holds every request for a fixed delay before forwarding it unchanged to the
 * store, over keep-alive connections: the "+20 ms" and "+100 ms" cases. The Host header is passed
 * through as the client sent it, because SigV4 signs it (the store accepts any Host path-style).
 * Prints `listening <port>` once ready.
 *
 * Usage: node bench/latency-proxy.ts <delay ms> <target port>
 */
import { Agent, createServer, request } from 'node:http';

const [delayText, targetText] = process.argv.slice(2);
const delay = Number(delayText);
const target = Number(targetText);
if (!Number.isInteger(delay) || !Number.isInteger(target)) {
  process.stderr.write('usage: latency-proxy.ts <delay ms> <target port>\n');
  process.exit(64);
}
const agent = new Agent({ keepAlive: true, maxSockets: 64 });
const server = createServer((req, res) => {
  setTimeout(() => {
    const upstream = request({ host: '127.0.0.1', port: target, method: req.method, path: req.url, headers: req.headers, agent }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  }, delay);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address !== null ? address.port : 0}\n`);
});
process.on('SIGTERM', () => {
  server.close();
  agent.destroy();
  process.exit(0);
});
