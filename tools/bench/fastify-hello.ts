/** The baseline server: raw Fastify answering a small JSON document. Prints its port. */
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/hello', async () => ({ hello: 'world' }));
app.listen({ port: 0, host: '127.0.0.1' }).then(() => {
  process.stdout.write(`PORT=${(app.server.address() as { port: number }).port}\n`);
});
