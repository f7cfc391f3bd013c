// The tracking edge's pure rules (no Nest, no I/O): what a visitor request means (link tokens, the
// visitor context read from a request, the hits a walk records). Each part lives in its own folder.

// Visitor sessions: key rules, size caps, the stored form.
export * from './sessions';
// hits: the reporting hits of a walk (RoutedHit + the request's visitor -> reporting's Hit).
export * from './hits';
// The asset snapshot: every routing asset by account as the asset events leave them, funnels' assets and compile cache, custom domains.
export * from './snapshot';
// Visitor context (issue 22): a request's attributes as routing and hits read them.
export * from './visitor';
// Visitor links (issue 22): entrance tokens, the account of a link (custom domain or /a/<accountId>/), action numbers, view tokens.
export * from './links';
// Incoming postbacks (issue 23): the parameters of /pb/ under the names networks use.
export * from './postbacks';
