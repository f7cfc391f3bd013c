import { Controller, Get, Header, Inject, NotFoundException, Param, Res } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ROUTE_TABLE } from '../gateway.tokens';
import { RouteTable } from '../route-table';
import { OpenApiDocument, buildOpenApiDocument } from './openapi';
import { gatewayOwnRoutes } from './own-routes';

/** The Swagger UI files the reference page loads, from the swagger-ui-dist package (no CDN). */
const UI_FILES: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>funnel-service /v1 API</title>
<link rel="stylesheet" href="/v1/docs/swagger-ui.css">
<link rel="icon" type="image/png" href="/v1/docs/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/v1/docs/swagger-ui-bundle.js"></script>
<script src="/v1/docs/swagger-ui-standalone-preset.js"></script>
<script src="/v1/docs/init.js"></script>
</body>
</html>
`;

const INIT = `window.ui = SwaggerUIBundle({
  url: '/v1/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'StandaloneLayout',
});
`;

/**
 * The API documents, public: `GET /v1/openapi.json` (built once, from the route table) and
 * `GET /v1/docs`, a Swagger UI page served from the swagger-ui-dist package's files.
 */
@Controller('v1')
export class ApiDocsHttpController {
  private readonly document: OpenApiDocument;
  private readonly json: string;
  private readonly uiDir = dirname(require.resolve('swagger-ui-dist/package.json'));
  private readonly files = new Map<string, Buffer>();

  constructor(@Inject(ROUTE_TABLE) routes: RouteTable) {
    this.document = buildOpenApiDocument(routes.all(), gatewayOwnRoutes());
    this.json = JSON.stringify(this.document);
  }

  @Get('openapi.json')
  @Header('Content-Type', 'application/json; charset=utf-8')
  openApi(): string {
    return this.json;
  }

  @Get('docs')
  @Header('Content-Type', 'text/html; charset=utf-8')
  page(): string {
    return PAGE;
  }

  @Get('docs/:file')
  async file(@Param('file') name: string, @Res() reply: FastifyReply): Promise<void> {
    if (name === 'init.js') return void (await reply.type('text/javascript; charset=utf-8').send(INIT));
    const type = UI_FILES[name];
    if (!type) throw new NotFoundException(`no file ${name}`);
    let content = this.files.get(name);
    if (!content) {
      content = readFileSync(join(this.uiDir, name));
      this.files.set(name, content);
    }
    await reply.type(type).header('cache-control', 'public, max-age=86400').send(content);
  }
}
