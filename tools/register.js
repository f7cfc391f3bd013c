// Runs TypeScript sources directly (SWC, with decorator metadata and @funnel/* paths from tsconfig.json),
// so `npm start` needs no build step.
process.env.SWC_NODE_PROJECT = process.env.SWC_NODE_PROJECT || require('path').join(__dirname, '..', 'tsconfig.json');

// Barrels use each module's own getter for `export *` (see export-star-getters.js).
const Module = require('module');
const { bindExportStarGetters } = require('./export-star-getters');
const compile = Module.prototype._compile;
Module.prototype._compile = function (content, filename) {
  return compile.call(this, bindExportStarGetters(content), filename);
};

require('@swc-node/register');
