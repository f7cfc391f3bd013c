import Ajv2020, { ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { OpenApiDocument, buildOpenApiDocument, gatewayOwnRoutes, gatewayRoutes } from '@funnel/gateway';

type Response = { description?: string; content?: Record<string, { schema: unknown }>; $ref?: string; 'x-optional-body'?: boolean };
type Operation = { responses: Record<string, Response> };

const DOCUMENT_ID = 'openapi.json';

/** A JSON pointer into the document, as a URI fragment ajv resolves. */
function pointer(...segments: string[]): string {
  return `${DOCUMENT_ID}#/${segments.map((s) => encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/')}`;
}

/**
 * Checks answers against the OpenAPI document the gateway serves (the same generator, the same
 * route table): the route and method must be documented, the status too (errors: the route's
 * `default` error answer), and a JSON body must match the schema for that status (ajv, JSON Schema
 * 2020-12 as OpenAPI 3.1 has it). Each schema is compiled once.
 */
export class ResponseContract {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, allowUnionTypes: true });
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly templates: { path: string; segments: string[] }[];

  constructor(private readonly document: OpenApiDocument) {
    addFormats(this.ajv);
    this.ajv.addSchema(document as object, DOCUMENT_ID);
    this.templates = Object.keys(document.paths).map((path) => ({ path, segments: path.split('/') }));
  }

  /** What is wrong with an answer, or undefined when it matches the document. `path` is under /v1 and may carry a query. */
  problem(method: string, path: string, status: number, text: string, body: unknown): string | undefined {
    const at = `${method} /v1${path} answered ${status}`;
    // HEAD answers carry no body: what GET answers is checked on GET.
    if (method === 'HEAD') return undefined;
    const template = this.templateOf(path);
    const operation = template ? (this.document.paths[template][method.toLowerCase()] as Operation | undefined) : undefined;
    if (!operation || !template) {
      // An unknown route or method: the error body of any route (the standard one, or billing's on its paths).
      if (status >= 400)
        return this.check(
          at,
          'anyOf',
          { anyOf: [{ $ref: pointer('components', 'schemas', 'Error') }, { $ref: pointer('components', 'schemas', 'BillingError') }] },
          body,
        );
      return `${at}, but the document has no ${method} ${path.split('?')[0]}`;
    }
    const key = operation.responses[String(status)] ? String(status) : status >= 400 ? 'default' : undefined;
    if (!key) return `${at}, a status the document does not give for ${method} ${template} (it gives ${Object.keys(operation.responses).join(', ')})`;
    let response = operation.responses[key];
    let location = pointer('paths', template, method.toLowerCase(), 'responses', key);
    if (response.$ref) {
      const name = response.$ref.split('/').pop()!;
      response = (this.document.components.responses as Record<string, Response>)[name];
      location = pointer('components', 'responses', name);
    }
    if (!response.content) return text === '' ? undefined : `${at} with a body, but the document says it answers none: ${text.slice(0, 300)}`;
    if (text === '') return response['x-optional-body'] ? undefined : `${at} with no body, but the document gives one`;
    if (!response.content['application/json']) return undefined; // not a JSON answer (the reference page)
    return this.check(at, `${location}/content/application~1json/schema`, undefined, body);
  }

  /** What is wrong with a request body for `method path` (its operation's requestBody schema), or undefined when it matches. */
  requestProblem(method: string, path: string, body: unknown): string | undefined {
    const template = this.templateOf(path);
    const operation = template ? (this.document.paths[template][method.toLowerCase()] as { requestBody?: unknown } | undefined) : undefined;
    if (!template || !operation?.requestBody) return `${method} ${path}: the document gives no request body`;
    return this.check(
      `${method} /v1${path} with this body`,
      `${pointer('paths', template, method.toLowerCase(), 'requestBody')}/content/application~1json/schema`,
      undefined,
      body,
    );
  }

  private check(at: string, ref: string, schema: object | undefined, body: unknown): string | undefined {
    let validate = this.validators.get(ref);
    if (!validate) {
      validate = schema ? this.ajv.compile(schema) : this.ajv.getSchema(ref);
      if (!validate) throw new Error(`no schema at ${ref}`);
      this.validators.set(ref, validate);
    }
    if (validate(body)) return undefined;
    const errors = (validate.errors ?? [])
      .slice(0, 10)
      .map((e) => `${e.instancePath || '(body)'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
    return `${at}, which does not match the API document:\n  ${errors.join('\n  ')}\nbody: ${JSON.stringify(body)?.slice(0, 600)}`;
  }

  private templateOf(path: string): string | undefined {
    let bare = path.split('?', 1)[0];
    if (bare.length > 1 && bare.endsWith('/')) bare = bare.slice(0, -1);
    if (this.document.paths[bare]) return bare;
    const segments = bare.split('/');
    // A fixed segment wins over a parameter (/billing/domains/check over /billing/domains/{domain}).
    const matches = this.templates.filter(
      (t) => t.segments.length === segments.length && t.segments.every((s, i) => s === segments[i] || (/^\{.+\}$/.test(s) && segments[i] !== '')),
    );
    return matches.sort((a, b) => paramCount(a.segments) - paramCount(b.segments))[0]?.path;
  }
}

function paramCount(segments: string[]): number {
  return segments.filter((s) => s.startsWith('{')).length;
}

let shared: ResponseContract | undefined;

/** The contract of the gateway's document, built once per test file. */
export function responseContract(): ResponseContract {
  shared ??= new ResponseContract(buildOpenApiDocument(gatewayRoutes(), gatewayOwnRoutes()));
  return shared;
}
