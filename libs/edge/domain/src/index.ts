// The tracking edge's pure rules (no Nest, no I/O): what a visitor request means (link tokens, the
// visitor context read from a request, the hits a walk records). Each part lives in its own folder.

// Visitor context (issue 22): a request's attributes as routing and hits read them.
export * from './visitor';
