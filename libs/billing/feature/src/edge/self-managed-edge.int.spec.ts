import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CheckDomainResponse } from '@funnel/contracts';
import { DomainRecord } from '@funnel/billing-domain';
import { OutboundHttp, dnsServersResolver } from '@funnel/platform';
import { RunningDnsServer, selfSignedCertificate, startDnsServer, tempDir } from '@funnel/testing';
import { DomainChecker, RoutingCheck } from '../checks/domain-checker';
import { SelfManagedEdge, dnsResolver } from './self-managed-edge';

const run = promisify(execFile);
const root = join(__dirname, '..', '..', '..', '..', '..');
const fixture = join(__dirname, 'fixtures', 'domain-check-process.fixture.ts');

/**
 * The self-managed edge against a local DNS server (dns2) and a local HTTPS server with a
 * self-signed certificate. The trusted-certificate cases run in a child process started with
 * NODE_EXTRA_CA_CERTS, Node's own way to add a CA to the default trust store (read at start only).
 */
describe('self-managed edge and the routing check', () => {
  const token = 'ownership-token-0123456789abcdef';
  const { cert, key } = selfSignedCertificate(['shop.example.com', 'parked.example.com']);
  const certDir = tempDir('billing-ca');
  const caFile = join(certDir.path, 'ca.pem');
  const seen: string[] = [];
  let dns: RunningDnsServer;
  let server: Server;
  let port: number;

  beforeAll(async () => {
    writeFileSync(caFile, cert);
    server = createServer({ cert, key }, (req, res) => {
      const host = (req.headers.host ?? '').split(':')[0];
      seen.push(`${host} ${req.url}`);
      const body = host === 'parked.example.com' ? { parked: true } : { service: 'funnel-edge', domain: host };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    dns = await startDnsServer(
      new Map([
        ['shop.example.com', { A: ['127.0.0.1'] }],
        ['_funnel-verify.shop.example.com', { TXT: [token] }],
        ['parked.example.com', { A: ['127.0.0.1'] }],
        ['elsewhere.example.com', { A: ['127.0.0.1'] }],
        ['_funnel-verify.elsewhere.example.com', { TXT: ['someone-else'] }],
        ['private.example.com', { A: ['10.0.0.1'] }],
        ['metadata.example.com', { A: ['169.254.169.254'] }],
        ['loopback6.example.com', { AAAA: ['::1'] }],
        // IPv4-mapped 127.0.0.1 (dns2 encodes the dotted form wrongly, so it is written in hex).
        ['mapped.example.com', { AAAA: ['::ffff:7f00:1'] }],
        ['mixed.example.com', { A: ['93.184.216.34', '127.0.0.1'] }],
      ]),
    );
  });
  afterAll(async () => {
    await dns.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    certDir.remove();
  });

  async function inChildProcess(job: object, env: NodeJS.ProcessEnv) {
    const { stdout } = await run(process.execPath, ['-r', join(root, 'tools', 'register.js'), fixture], {
      cwd: root,
      env: { ...process.env, ...env, CHECK_JOB: JSON.stringify({ dnsServers: [dns.address], port, allowPrivate: true, ...job }) },
    });
    return JSON.parse(stdout) as { checks: Record<string, CheckDomainResponse>; observed: Record<string, Record<string, unknown>> };
  }

  it('with the certificate trusted through NODE_EXTRA_CA_CERTS: finds our edge, verifies ownership by TXT, and tells why others fail', async () => {
    const result = await inChildProcess(
      {
        checks: ['shop.example.com', 'parked.example.com', 'elsewhere.example.com', 'unknown.example.com'],
        observe: [
          { domain: 'shop.example.com', token },
          { domain: 'elsewhere.example.com', token },
        ],
      },
      { NODE_EXTRA_CA_CERTS: caFile },
    );
    expect(result.checks['shop.example.com']).toMatchObject({
      success: true,
      found: true,
      ssl_valid: true,
      http_status: 200,
      ssl_error: '',
      error_message: '',
    });
    expect(result.checks['parked.example.com']).toMatchObject({
      found: false,
      ssl_valid: true,
      http_status: 200,
      error_message: '/debug/domain-check answered, but not as our edge does: the domain does not point to us',
    });
    expect(result.checks['elsewhere.example.com']).toMatchObject({
      found: false,
      ssl_valid: false,
      http_status: 0,
      ssl_error: 'the certificate is not valid for elsewhere.example.com (ERR_TLS_CERT_ALTNAME_INVALID)',
    });
    expect(result.checks['unknown.example.com']).toMatchObject({
      found: false,
      ssl_valid: false,
      error_message: expect.stringMatching(/^unknown\.example\.com (could not be resolved|has no address)/),
    });
    expect(result.observed['shop.example.com']).toMatchObject({
      status: 'active',
      sslStatus: 'active',
      ownership: { type: 'txt', name: '_funnel-verify.shop.example.com', value: token },
      ownershipVerified: true,
      verificationErrors: [],
    });
    expect(result.observed['elsewhere.example.com']).toMatchObject({
      status: 'pending',
      sslStatus: 'pending_validation',
      ownershipVerified: false,
      verificationErrors: ['the TXT record _funnel-verify.elsewhere.example.com does not hold the expected value'],
    });
    expect(seen).toContain('shop.example.com /debug/domain-check');
  });

  it('without it, the self-signed chain is not trusted', async () => {
    const result = await inChildProcess({ checks: ['shop.example.com'], observe: [] }, { NODE_EXTRA_CA_CERTS: '' });
    expect(result.checks['shop.example.com']).toMatchObject({
      found: false,
      ssl_valid: false,
      ssl_error: 'the certificate chain is not trusted (DEPTH_ZERO_SELF_SIGNED_CERT)',
      error_message: 'the TLS handshake failed: the certificate chain is not trusted (DEPTH_ZERO_SELF_SIGNED_CERT)',
    });
  });

  describe('with OUTBOUND_ALLOW_PRIVATE off (the default)', () => {
    let http: OutboundHttp;
    let checker: DomainChecker;
    beforeAll(() => {
      http = new OutboundHttp({ resolver: dnsServersResolver([dns.address]) });
      checker = new DomainChecker({ http, port });
    });
    afterAll(() => http.close());

    it.each(['127.0.0.1', '10.0.0.1', '169.254.169.254', '[::1]', '[::ffff:127.0.0.1]'])('refuses the address %s before connecting', async (host) => {
      const before = seen.length;
      const result = await checker.check(host);
      expect(result).toMatchObject({
        success: true,
        found: false,
        ssl_valid: false,
        http_status: 0,
        error_message: expect.stringMatching(/is not a public address$/),
      });
      expect(seen.length).toBe(before);
    });

    it.each([
      ['private.example.com', '10.0.0.1'],
      ['metadata.example.com', '169.254.169.254'],
      ['loopback6.example.com', '::1'],
      ['mapped.example.com', '::ffff:127.0.0.1'],
      ['mixed.example.com', '127.0.0.1'],
      ['shop.example.com', '127.0.0.1'],
    ])('refuses %s, which resolves to %s, and connects nowhere', async (domain, address) => {
      const before = seen.length;
      const result = await checker.check(domain);
      expect(result).toMatchObject({ found: false, error_message: `${domain} resolves to ${address}, which is not a public address` });
      expect(seen.length).toBe(before);
    });
  });

  describe('ownership by TXT through DNS_SERVERS', () => {
    const edge = () => new SelfManagedEdge(dnsResolver([dns.address]));
    const check = async (found: boolean): Promise<RoutingCheck> => ({
      success: true,
      found,
      ssl_valid: found,
      http_status: found ? 200 : 0,
      ssl_error: '',
      response_time_ms: 1,
      error_message: '',
      check_timestamp: 0,
      error_code: '',
    });
    const recordOf = async (domain: string, status: DomainRecord['status'] = 'pending'): Promise<DomainRecord> => ({
      id: 'DOMAIN000001',
      accountId: 'ACCOUNT0000A',
      domain,
      subdomain: '',
      rootDomain: domain,
      createdAt: '',
      status,
      edge: await edge().provision({ domain, verificationToken: token }),
    });

    it('provisions a pending hostname whose ownership record is _funnel-verify.<domain> = the token', async () => {
      expect((await recordOf('shop.example.com')).edge).toMatchObject({
        edgeId: expect.stringMatching(/^sm-/),
        status: 'pending',
        sslStatus: 'initializing',
        ownership: { type: 'txt', name: '_funnel-verify.shop.example.com', value: token },
        ownershipVerified: false,
      });
    });

    it('verifies the record, reports a missing one, and follows the status rules', async () => {
      expect(await edge().observe(await recordOf('shop.example.com'), check(false))).toMatchObject({
        ownershipVerified: true,
        status: 'pending',
        sslStatus: 'initializing',
      });
      expect(await edge().observe(await recordOf('shop.example.com', 'active'), check(false))).toMatchObject({ status: 'moved' });
      expect(await edge().observe(await recordOf('parked.example.com'), check(true))).toMatchObject({
        ownershipVerified: false,
        status: 'pending',
        verificationErrors: ['no TXT record _funnel-verify.parked.example.com found'],
      });
      dns.records.set('_funnel-verify.parked.example.com', { TXT: [token] });
      expect(await edge().observe(await recordOf('parked.example.com'), check(true))).toMatchObject({
        ownershipVerified: true,
        status: 'active',
        verificationErrors: [],
      });
    });
  });
});
