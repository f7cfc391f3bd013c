import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { IdentityRequestBody, IdentitySubjects, RpcRequest } from '@funnel/contracts';
import { ServiceClient, createMetricsRegistry } from '@funnel/platform';
import { GatewayModule } from './gateway.module';
import { createGatewayApp } from './create-gateway-app';

/** The gateway over a service client that records what it forwards. */
async function gatewayRecording(trustProxy: boolean) {
  const forwarded: { subject: string; payload: RpcRequest<IdentityRequestBody> }[] = [];
  const client = {
    request: async <T>(subject: string, payload: RpcRequest<IdentityRequestBody>) => {
      forwarded.push({ subject, payload });
      return {} as T;
    },
    subscribe: () => () => undefined,
    close: async () => undefined,
  } as unknown as ServiceClient;
  const app: NestFastifyApplication = await createGatewayApp(GatewayModule.forRoot({ client, metrics: createMetricsRegistry(), readiness: [] }), false, {
    trustProxy,
  });
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return { app, forwarded };
}

describe('forwarding of public identity routes', () => {
  it.each([
    [false, '127.0.0.1'],
    [true, '203.0.113.9'],
  ])('with TRUST_PROXY=%s, login carries the source address %s and validate the raw bearer token', async (trustProxy, address) => {
    const { app, forwarded } = await gatewayRecording(trustProxy);
    try {
      const fastify = app.getHttpAdapter().getInstance();
      const login = await fastify.inject({
        method: 'POST',
        url: '/v1/auth/login',
        headers: { 'x-forwarded-for': '203.0.113.9' },
        payload: { username: 'u@example.com', password: 'p' },
        remoteAddress: '127.0.0.1',
      });
      expect(login.statusCode).toBe(200);
      const validate = await fastify.inject({ method: 'POST', url: '/v1/auth/validate', headers: { authorization: 'Bearer abc.def.ghi' }, payload: {} });
      expect(validate.statusCode).toBe(200);
      expect(forwarded.map((f) => f.subject)).toEqual([IdentitySubjects.login, IdentitySubjects.validate]);
      expect(forwarded[0].payload.body).toEqual({ query: {}, body: { username: 'u@example.com', password: 'p' }, sourceAddress: address });
      expect(forwarded[1].payload.body).toMatchObject({ bearerToken: 'abc.def.ghi' });
      expect(forwarded[1].payload.body).not.toHaveProperty('sourceAddress');
      // Public routes carry no caller.
      expect(forwarded[0].payload.context).toMatchObject({ accountId: '', userId: '', permissions: [] });
    } finally {
      await app.close();
    }
  });
});
