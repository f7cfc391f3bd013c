// Runs TypeScript sources directly (SWC, with decorator metadata and @funnel/* paths from tsconfig.json),
// so `npm start` needs no build step.
process.env.SWC_NODE_PROJECT = process.env.SWC_NODE_PROJECT || require('path').join(__dirname, '..', 'tsconfig.json');
require('@swc-node/register');
