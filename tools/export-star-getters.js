// SWC writes `export * from './x'` as a getter per name that reads `from[k]`: one shared function
// whose keyed read V8 cannot specialise, so every use of a name through a barrel (`@funnel/*`'s
// index.ts, barrels of barrels) calls a slow getter, about 10 µs of a tracking-edge redirect. Each
// name of a compiled module (`__esModule`) is itself a getter of its module's live binding: a barrel
// takes that getter over, as TypeScript's own __exportStar (__createBinding) does, so a use is one
// plain getter call whatever the depth. Other modules keep SWC's getter; output without SWC's helper
// (or with a helper worded otherwise) is left as it is.
const EXPORT_STAR_GETTER = /get: function\(\) \{\s*return from\[k\];\s*\}/;
const BINDING_GETTER =
  'get: (function (d) { return from.__esModule && d && typeof d.get === "function" ? d.get : function () { return from[k]; }; })(Object.getOwnPropertyDescriptor(from, k))';

/** SWC's CommonJS output `code` with its `_export_star` helper taking over each module's own getter. */
function bindExportStarGetters(code) {
  return code.includes('function _export_star(') ? code.replace(EXPORT_STAR_GETTER, BINDING_GETTER) : code;
}

module.exports = { bindExportStarGetters };
