import nx from '@nx/eslint-plugin';

export default [
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  { ignores: ['**/dist', '**/node_modules', '**/tmp', '**/data', '**/coverage', '.nx'] },
  {
    files: ['**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: true,
          allow: [],
          depConstraints: [
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:feature', 'type:domain', 'type:util', 'type:data-access'] },
            { sourceTag: 'type:feature', onlyDependOnLibsWithTags: ['type:feature', 'type:domain', 'type:util', 'type:data-access'] },
            { sourceTag: 'type:data-access', onlyDependOnLibsWithTags: ['type:util', 'type:data-access'] },
            { sourceTag: 'type:domain', onlyDependOnLibsWithTags: ['type:domain', 'type:util'] },
            { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:util'] },
            { sourceTag: 'type:tools', onlyDependOnLibsWithTags: ['type:feature', 'type:domain', 'type:util', 'type:data-access', 'type:testing'] },
            { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:feature', 'type:domain', 'type:util', 'type:data-access', 'type:testing'] },
            { sourceTag: 'scope:assets', onlyDependOnLibsWithTags: ['scope:assets', 'scope:routing', 'scope:shared'] },
            // The routing engine walks funnels of the assets context's model; the simulator (assets) and the edge run it.
            { sourceTag: 'scope:routing', onlyDependOnLibsWithTags: ['scope:routing', 'scope:assets', 'scope:shared'] },
            { sourceTag: 'scope:identity', onlyDependOnLibsWithTags: ['scope:identity', 'scope:shared'] },
            { sourceTag: 'scope:billing', onlyDependOnLibsWithTags: ['scope:billing', 'scope:shared'] },
            { sourceTag: 'scope:reporting', onlyDependOnLibsWithTags: ['scope:reporting', 'scope:shared'] },
            // Integrations keep their tokens with the assets' write-only-secret mechanism and feed reporting's cost and conversion updates.
            { sourceTag: 'scope:integrations', onlyDependOnLibsWithTags: ['scope:integrations', 'scope:assets', 'scope:reporting', 'scope:shared'] },
            { sourceTag: 'scope:scripts', onlyDependOnLibsWithTags: ['scope:scripts', 'scope:shared'] },
            { sourceTag: 'scope:gateway', onlyDependOnLibsWithTags: ['scope:gateway', 'scope:shared'] },
            // The tracking edge routes with the engine over asset records and hands hits to reporting.
            { sourceTag: 'scope:edge', onlyDependOnLibsWithTags: ['scope:edge', 'scope:routing', 'scope:assets', 'scope:reporting', 'scope:shared'] },
            { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
          ],
        },
      ],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Tests (and their harnesses) may reach into the testing lib and any lib they exercise.
    files: ['**/*.spec.ts', '**/e2e/**/*.ts'],
    rules: { '@nx/enforce-module-boundaries': 'off' },
  },
];
