/**
 * The middleware bench's destination: answers every POST with `{ "verdict": "ok" }` after
 * MIDDLEWARE_DELAY_MS (default 20), on 127.0.0.1. Prints its port. `GET /calls` answers the number
 * of calls answered so far.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const delayMs = Number(process.env.MIDDLEWARE_DELAY_MS ?? 20);
const answer = JSON.stringify({ verdict: 'ok' });
let calls = 0;
const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/calls') return void res.writeHead(200, { 'content-type': 'text/plain' }).end(String(calls));
  req.resume();
  req.on('end', () =>
    setTimeout(() => {
      calls++;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) }).end(answer);
    }, delayMs),
  );
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`PORT=${(server.address() as AddressInfo).port}\n`));
