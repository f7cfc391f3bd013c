/** A baseline server: raw Fastify answering the same JSON bytes on every request (BENCH_JSON_FILE). Prints its port. */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const bytes = readFileSync(process.env.BENCH_JSON_FILE ?? '');
const app = Fastify({ logger: false });
app.get('/json', (_request, reply) => {
  reply.header('content-type', 'application/json; charset=utf-8').send(bytes);
});
app.listen({ port: 0, host: '127.0.0.1' }).then(() => {
  process.stdout.write(`PORT=${(app.server.address() as { port: number }).port}\n`);
});
