import type { OwnRoute } from './openapi/route-doc';
import { IDS_ROUTES } from '../ids.http.controller';

/** The /v1 routes the gateway serves itself (its controllers), declared where each is defined. */
export const API_DOCS_ROUTES: OwnRoute[] = [
  {
    method: 'GET',
    path: '/openapi.json',
    permission: 'public',
    doc: {
      tag: 'documents',
      summary: 'This document (OpenAPI 3.1)',
      answer: { type: 'object', required: ['openapi', 'paths'], properties: { openapi: { type: 'string' }, paths: { type: 'object' } } },
    },
  },
  {
    method: 'GET',
    path: '/asyncapi.json',
    permission: 'authenticated',
    doc: {
      tag: 'documents',
      summary: 'The asset event stream for internal services (AsyncAPI 3): subjects and payloads of ASSET_EVENTS',
      answer: {
        type: 'object',
        required: ['asyncapi', 'channels', 'operations'],
        properties: { asyncapi: { type: 'string' }, channels: { type: 'object' }, operations: { type: 'object' } },
      },
    },
  },
  {
    method: 'GET',
    path: '/docs',
    permission: 'public',
    doc: { tag: 'documents', summary: 'The rendered reference of this document (Swagger UI)', answer: { type: 'string' }, contentType: 'text/html' },
  },
  {
    method: 'GET',
    path: '/docs/:file',
    permission: 'public',
    doc: {
      tag: 'documents',
      summary: "The reference page's script, style and icon files (from swagger-ui-dist)",
      answer: { type: 'string' },
      contentType: '*/*',
    },
  },
];

export function gatewayOwnRoutes(): OwnRoute[] {
  return [...IDS_ROUTES, ...API_DOCS_ROUTES];
}
