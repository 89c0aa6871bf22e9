// The layers of src/, lowest first: a folder imports only from layers below its own, so folders
// never form a cycle and the core never reaches into sources or surfaces. Tests are exempt (they
// drive the public surfaces). A new top-level folder must be placed here before it can be imported.
const layers = [
  ['text', 'errors', 'system'],
  ['skill', 'version.ts'],
  ['store', 'config', 'abilities'],
  ['audit', 'accounts', 'registry'],
  ['policy', 'connections', 'identity'],
  ['oauth'],
  ['access'],
  ['runtime'],
  ['sources'],
  ['install'],
  ['discovery'],
  ['memory', 'learnings'],
  ['plane', 'inventory', 'edge-agent'],
  ['ai-sdk'],
  ['agents'],
  ['surfaces'],
  ['test-support'],
]
const placed = layers.flat()
// A folder's face; sources and surfaces hold one folder per source or surface, each with its own.
const FACE = '^src/(?:(?:sources|surfaces)/[^/]+|[^/]+)/index\\.ts$'
const under = (names) => `^src/(${names.map((n) => n.replace('.', '\\.')).join('|')})($|/)`

module.exports = {
  forbidden: [
    ...layers.slice(0, -1).map((layer, i) => ({
      name: `layer-${layer.join('-')}`,
      comment: `${layer.join(', ')} may not import from the layers above it (${layers
        .slice(i + 1)
        .flat()
        .join(', ')})`,
      severity: 'error',
      from: { path: under(layer), pathNot: '\\.test\\.ts$' },
      to: { path: under(layers.slice(i + 1).flat()) },
    })),
    ...layers.map((layer) => ({
      name: `layer-${layer.join('-')}-siblings`,
      comment: 'folders of one layer do not import each other',
      severity: 'error',
      from: { path: under(layer), pathNot: '\\.test\\.ts$' },
      to: { path: under(layer), pathNot: '^src/$1($|/)' },
    })),
    {
      name: 'unplaced-folder',
      comment: 'every top-level folder of src/ has a layer in .dependency-cruiser.cjs',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^src/[^/]+/', pathNot: under(placed) },
    },
    {
      name: 'through-faces',
      comment: 'another folder is reached through its index.ts, its face, never by one of its files',
      severity: 'error',
      from: { path: '^src/(?!sources/|surfaces/)([^/]+)/', pathNot: ['\\.test\\.ts$', '^src/test-support/'] },
      to: { path: '^src/', pathNot: ['^src/$1/', FACE, '^src/version\\.ts$'] },
    },
    {
      name: 'through-faces-nested',
      comment: 'a source or surface reaches another folder through its index.ts, its face',
      severity: 'error',
      from: { path: '^src/(sources|surfaces)/([^/]+)/', pathNot: '\\.test\\.ts$' },
      // Light leaf modules for the CLI's command declarations, config lookup and skills validate, so they start fast.
      to: {
        path: '^src/',
        pathNot: [
          '^src/$1/$2/',
          FACE,
          '^src/version\\.ts$',
          '^src/config/load-config\\.ts$',
          '^src/policy/approval-status\\.ts$',
          '^src/policy/grant-scope\\.ts$',
          '^src/agents/run-status\\.ts$',
          '^src/policy/decide-policy\\.ts$',
          '^src/sources/agent-skills/validate-skills\\.ts$',
          '^src/sources/agent-skills/finding\\.ts$',
          '^src/install/check-installed\\.ts$',
          '^src/install/install-target\\.ts$',
        ],
      },
    },
    {
      name: 'no-circular',
      comment: 'modules do not import each other in a circle',
      severity: 'error',
      from: { pathNot: '\\.test\\.ts$' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
}
