// Visitor links: entrance tokens, whose account a link is, action numbers, the tokens a page view answers.
export * from './entrance-token';
export * from './link-account';
export * from './action-number';
export * from './view-tokens';
