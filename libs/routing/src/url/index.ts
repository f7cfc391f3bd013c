export { type Segment, parseTemplate, render } from './template';
export { type TokenContext, type TokenKind, type TokenRef, tokenRef, tokenValue } from './tokens';
export {
  type OfferQuery,
  type RedirectOptions,
  type UrlTemplate,
  VISITOR_PARAM,
  buildRedirectUrl,
  compileOfferQuery,
  compileUrlTemplate,
} from './redirect-url';
