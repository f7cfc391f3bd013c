/** The edge's baseline: raw Fastify answering every GET of /fts/<token> with a fixed 302. Prints its port. */
import Fastify from 'fastify';

const LOCATION = 'https://lp.example.com/main-a?h=0123456789ab&v=0123456789ab&ts=0123456789ab';
const app = Fastify({ logger: false });
app.get('/fts/:token', async (_request, reply) => reply.code(302).header('location', LOCATION).send());
app.listen({ port: 0, host: '127.0.0.1' }).then(() => {
  process.stdout.write(`PORT=${(app.server.address() as { port: number }).port}\n`);
});
