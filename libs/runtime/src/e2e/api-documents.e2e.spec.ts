import SwaggerParser from '@apidevtools/swagger-parser';
import { buildOpenApiDocument, gatewayOwnRoutes, gatewayRoutes } from '@funnel/gateway';
import { describeInBothModes } from './harness';

describeInBothModes('the API documents', (d) => {
  it('GET /v1/openapi.json: the valid generated document, without a credential', async () => {
    const answer = await d().api.call('GET', '/openapi.json', { key: '' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.body).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument(gatewayRoutes(), gatewayOwnRoutes()))));
    await expect(SwaggerParser.validate(answer.body)).resolves.toBeTruthy();
  });

  it('GET /v1/docs: the Swagger UI page and its files, without a credential', async () => {
    const page = await d().api.call('GET', '/docs/', { key: '' });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toContain('<div id="swagger-ui"></div>');
    const bundle = await d().api.call('GET', '/docs/swagger-ui-bundle.js', { key: '', contract: false });
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(bundle.text).toContain('SwaggerUIBundle');
  });
});
