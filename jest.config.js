// One jest run, three projects (unit, integration, e2e) so each can also run alone:
//   npx jest --selectProjects unit|integration|e2e
const { pathsToModuleNameMapper } = require('./tools/jest/paths');

// ESM-only packages: jose, otpauth; openid-client 6 and its oauth4webapi; oauth2-mock-server (tests) and its is-plain-obj.
const ESM_PACKAGES = 'jose|otpauth|openid-client|oauth4webapi|oauth2-mock-server|is-plain-obj';

const transform = {
  '^.+\\.ts$': [
    '@swc/jest',
    {
      jsc: {
        parser: { syntax: 'typescript', decorators: true },
        transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
        target: 'es2022',
      },
      module: { type: 'commonjs' },
      sourceMaps: 'inline',
    },
  ],
  // ESM-only packages (Node loads them with require(esm); jest on Node 20 cannot): compiled to CommonJS.
  [`/node_modules/(${ESM_PACKAGES})/.+\\.m?js$`]: ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
};
const transformIgnorePatterns = [`/node_modules/(?!(${ESM_PACKAGES})/)`];

const common = {
  rootDir: __dirname,
  // Jest's cache stays with the dependencies rather than under the OS temp dir, which a run leaves as it found it.
  cacheDirectory: '<rootDir>/node_modules/.cache/jest',
  testEnvironment: 'node',
  transform,
  transformIgnorePatterns,
  moduleNameMapper: pathsToModuleNameMapper(),
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '<rootDir>/tmp/'],
  setupFiles: ['reflect-metadata', '<rootDir>/tools/jest/fast-check.js'],
};

module.exports = {
  testTimeout: 60000,
  // No forceExit: every suite closes what it opened, so a worker that does not exit by itself
  // ("A worker process has failed to exit gracefully") points at a leak (--detectOpenHandles).
  maxWorkers: 2,
  // How long a worker has to exit once the run is over. Jest's 500 ms is less than a worker that
  // leaves nothing open takes on a loaded machine: its event loop empties within a few ms of the
  // end message, then the process itself takes 60 to 900 ms to go (measured with 2 cores at a load
  // of 12: freeing a heap of hundreds of MB, native libraries' teardown after DuckDB suites), so
  // Jest killed it and printed the warning at random. A leaked handle still keeps a worker alive
  // for good, so the warning still points at a leak.
  workerGracefulExitTimeout: 5000,
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/{apps,libs,tools}/**/*.spec.ts'],
      testPathIgnorePatterns: [...common.testPathIgnorePatterns, '\\.int\\.spec\\.ts$', '\\.e2e\\.spec\\.ts$'],
    },
    { ...common, displayName: 'integration', testMatch: ['<rootDir>/{apps,libs,tools}/**/*.int.spec.ts'] },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/{apps,libs,tools}/**/*.e2e.spec.ts'] },
  ],
};
