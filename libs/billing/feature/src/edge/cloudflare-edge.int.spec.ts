import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DomainRecord } from '@funnel/billing-domain';
import { freePort } from '@funnel/testing';
import type { RoutingCheck } from '../checks/domain-checker';
import { CloudflareEdge, edgeSslStatusOf, edgeStatusOf } from './cloudflare-edge';

const ZONE = '023e105f4ecef8ad9ca31a8372d0c353';
const TOKEN = 'cf-token-0123456789';

interface Seen {
  method: string;
  url: string;
  authorization?: string;
  body: unknown;
}

/** A stand-in for the Cloudflare v4 API, answering with the documented custom-hostname shapes. */
function cloudflareApi(seen: Seen[], hostnames: Map<string, Record<string, unknown>>) {
  let next = 1;
  const send = (res: import('node:http').ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const refuse = (res: import('node:http').ServerResponse, status: number, code: number, message: string) =>
    send(res, status, { success: false, errors: [{ code, message }], messages: [], result: null });
  return createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : undefined;
    seen.push({ method: req.method!, url: req.url!, authorization: req.headers.authorization, body });
    const base = `/client/v4/zones/${ZONE}/custom_hostnames`;
    if (req.headers.authorization !== `Bearer ${TOKEN}`) return refuse(res, 403, 10000, 'Authentication error');
    if (!req.url!.startsWith(base)) return refuse(res, 404, 7003, 'Could not route to /zones');
    const id = req.url!.slice(base.length + 1);
    if (req.method === 'POST' && id === '') {
      const { hostname } = body as { hostname: string };
      if (hostname === 'boom.example.com') return refuse(res, 500, 1000, 'internal error');
      if ([...hostnames.values()].some((h) => h.hostname === hostname)) return refuse(res, 409, 1406, 'Duplicate custom hostname found.');
      const created = {
        id: `cf-${next++}`,
        hostname,
        ssl: {
          id: 'ssl-1',
          method: 'txt',
          type: 'dv',
          status: 'pending_validation',
          txt_name: `_acme-challenge.${hostname}`,
          txt_value: '810b7d5f01154524b961ba0cd578acc2',
          validation_records: [{ txt_name: `_acme-challenge.${hostname}`, txt_value: '810b7d5f01154524b961ba0cd578acc2', status: 'pending' }],
          validation_errors: [{ message: `SERVFAIL looking up CAA for ${hostname}` }],
          settings: { min_tls_version: '1.2' },
        },
        status: 'pending',
        verification_errors: ['None of the A or AAAA records are owned by this account and the pre-generated ownership verification token was not found.'],
        ownership_verification: { type: 'txt', name: `_cf-custom-hostname.${hostname}`, value: '5cc07c04-ea62-4a5a-95f0-419334a875a4' },
        ownership_verification_http: { http_url: `http://${hostname}/.well-known/cf-custom-hostname-challenge/x`, http_body: 'y' },
        created_at: '2020-02-06T18:11:23.531995Z',
      };
      hostnames.set(created.id, created);
      return send(res, 200, { success: true, errors: [], messages: [], result: created });
    }
    const found = hostnames.get(id);
    if (!found) return refuse(res, 404, 1436, 'The custom hostname was not found.');
    if (req.method === 'GET') return send(res, 200, { success: true, errors: [], messages: [], result: found });
    if (req.method === 'PATCH') {
      // Validating again: this stand-in finds the records in place.
      const validated = { ...found, status: 'active', verification_errors: [], ssl: { ...(found.ssl as object), status: 'active', validation_errors: [] } };
      hostnames.set(id, validated);
      return send(res, 200, { success: true, errors: [], messages: [], result: validated });
    }
    if (req.method === 'DELETE') {
      hostnames.delete(id);
      return send(res, 200, { id });
    }
    return refuse(res, 405, 10405, 'Method not allowed');
  });
}

describe('Cloudflare edge adapter against a local stand-in of the v4 API', () => {
  const seen: Seen[] = [];
  const hostnames = new Map<string, Record<string, unknown>>();
  let server: Server;
  let edge: CloudflareEdge;
  const noCheck: Promise<RoutingCheck> = Promise.resolve({
    success: true,
    found: false,
    ssl_valid: false,
    http_status: 0,
    ssl_error: '',
    response_time_ms: 0,
    error_message: '',
    check_timestamp: 0,
    error_code: '',
  });
  const recordOf = (edgeId: string): DomainRecord =>
    ({
      id: 'D',
      accountId: 'A',
      domain: 'shop.example.com',
      subdomain: 'shop',
      rootDomain: 'example.com',
      createdAt: '',
      status: 'pending',
      edge: { edgeId },
    }) as DomainRecord;

  beforeAll(async () => {
    server = cloudflareApi(seen, hostnames);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    edge = new CloudflareEdge({ apiToken: TOKEN, zoneId: ZONE, apiUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/client/v4/` });
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    seen.length = 0;
    hostnames.clear();
  });

  it('creates a custom hostname with TXT domain validation and shows what to add', async () => {
    const view = await edge.provision({ domain: 'shop.example.com', verificationToken: 'ours-is-not-used' });
    expect(seen).toEqual([
      {
        method: 'POST',
        url: `/client/v4/zones/${ZONE}/custom_hostnames`,
        authorization: `Bearer ${TOKEN}`,
        body: { hostname: 'shop.example.com', ssl: { method: 'txt', type: 'dv', settings: { min_tls_version: '1.2' } } },
      },
    ]);
    expect(view).toEqual({
      edgeId: 'cf-1',
      status: 'pending',
      sslStatus: 'pending_validation',
      sslTxtName: '_acme-challenge.shop.example.com',
      sslTxtValue: '810b7d5f01154524b961ba0cd578acc2',
      ownership: { type: 'txt', name: '_cf-custom-hostname.shop.example.com', value: '5cc07c04-ea62-4a5a-95f0-419334a875a4' },
      ownershipVerified: false,
      verificationErrors: [
        'None of the A or AAAA records are owned by this account and the pre-generated ownership verification token was not found.',
        'SERVFAIL looking up CAA for shop.example.com',
      ],
    });
  });

  it('gets the current state, and rechecks with a PATCH of the same ssl object', async () => {
    const { edgeId } = await edge.provision({ domain: 'shop.example.com', verificationToken: 't' });
    expect(await edge.observe(recordOf(edgeId), noCheck)).toMatchObject({ status: 'pending', ownershipVerified: false });
    const rechecked = await edge.observe(recordOf(edgeId), noCheck, { recheck: true });
    expect(rechecked).toMatchObject({ status: 'active', sslStatus: 'active', ownershipVerified: true, verificationErrors: [] });
    expect(seen.slice(1).map((s) => [s.method, s.url, s.body])).toEqual([
      ['GET', `/client/v4/zones/${ZONE}/custom_hostnames/${edgeId}`, undefined],
      ['PATCH', `/client/v4/zones/${ZONE}/custom_hostnames/${edgeId}`, { ssl: { method: 'txt', type: 'dv', settings: { min_tls_version: '1.2' } } }],
    ]);
  });

  it('deletes, and a hostname Cloudflare no longer has counts as deleted', async () => {
    const { edgeId } = await edge.provision({ domain: 'shop.example.com', verificationToken: 't' });
    await edge.deprovision(recordOf(edgeId));
    expect(hostnames.size).toBe(0);
    await expect(edge.deprovision(recordOf(edgeId))).resolves.toBeUndefined();
  });

  it('answers refusals with 409 EDGE_REJECTED and outages with 503 EDGE_UNAVAILABLE, never echoing the token', async () => {
    await edge.provision({ domain: 'shop.example.com', verificationToken: 't' });
    const duplicate = await edge.provision({ domain: 'shop.example.com', verificationToken: 't' }).catch((e: unknown) => e);
    expect(duplicate).toMatchObject({
      status: 409,
      code: 'EDGE_REJECTED',
      message: 'Cloudflare refused the request (HTTP 409): Duplicate custom hostname found. (1406)',
    });
    await expect(edge.observe(recordOf('cf-404'), noCheck)).rejects.toMatchObject({ status: 409, code: 'EDGE_REJECTED' });
    await expect(edge.provision({ domain: 'boom.example.com', verificationToken: 't' })).rejects.toMatchObject({ status: 503, code: 'EDGE_UNAVAILABLE' });
    const badToken = new CloudflareEdge({ apiToken: 'wrong', zoneId: ZONE, apiUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/client/v4` });
    const refused = await badToken.provision({ domain: 'x.example.com', verificationToken: 't' }).catch((e: Error) => e);
    expect(refused).toMatchObject({ status: 409, message: 'Cloudflare refused the request (HTTP 403): Authentication error (10000)' });
    const down = new CloudflareEdge({ apiToken: TOKEN, zoneId: ZONE, apiUrl: `http://127.0.0.1:${await freePort()}/client/v4` });
    const unreachable = await down.provision({ domain: 'x.example.com', verificationToken: 't' }).catch((e: Error) => e);
    expect(unreachable).toMatchObject({ status: 503, code: 'EDGE_UNAVAILABLE', message: 'Cloudflare: the API could not be reached' });
    for (const error of [duplicate, refused, unreachable]) expect(JSON.stringify(error)).not.toContain(TOKEN);
  });

  it('maps Cloudflare statuses onto edge_status and edge_ssl_status', () => {
    expect(
      ['active', 'active_redeploying', 'pending', 'pending_blocked', 'moved', 'deleted', 'pending_deletion', 'blocked', undefined].map(edgeStatusOf),
    ).toEqual(['active', 'active', 'pending', 'pending', 'moved', 'deleted', 'deleted', 'pending', 'pending']);
    expect(['active', 'initializing', undefined, 'pending_validation', 'pending_issuance', 'pending_deployment', 'expired'].map(edgeSslStatusOf)).toEqual([
      'active',
      'initializing',
      'initializing',
      'pending_validation',
      'pending_validation',
      'pending_validation',
      'pending_validation',
    ]);
  });
});
