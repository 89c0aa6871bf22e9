// `npm run build`'s second step: bundles the CLI (dist/surfaces/cli/main.js) and the library
// (dist/index.js) over tsc's output of the same two files, sharing their code in dist/chunks/.
// Node 20 spends most of a command's start resolving and linking ~1,400 modules one by one; a bundle
// is a handful of files. Every other file tsc wrote (and every .d.ts) stays as it was.
import { rm, mkdir, readFile, writeFile, chmod } from 'node:fs/promises'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const root = fileURLToPath(new URL('..', import.meta.url))
const src = join(root, 'src')
const dist = join(root, 'dist')

// Loaded as themselves, not bundled: a native addon (better-sqlite3); the config loader, whose own
// files it loads lazily (jiti); packages a user's config or code imports too, which must stay one
// copy (zod schemas, the OpenTelemetry API's global tracer); and the AI and MCP SDKs, which commands
// import only when they run a model or talk MCP (their lazy loading is tested by their paths).
const external = [
  'better-sqlite3',
  'jiti',
  'zod',
  'zod/*',
  '@opentelemetry/api',
  'ai',
  '@ai-sdk/*',
  '@modelcontextprotocol/sdk',
  '@modelcontextprotocol/sdk/*',
  // Optional native speed-ups that packages require inside try/catch.
  'pg-native',
  'bufferutil',
  'utf-8-validate',
]

// Sources find files beside themselves (package.json, dist/console, main.js) from import.meta.url;
// in a bundle their code sits in another file, so each use is pointed at the file tsc would have
// written: a placeholder for the way from the bundle file to dist/, filled in once files are placed.
const DIST = '__skillplane_dist__/'
const importMetaUrl = {
  name: 'import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (!args.path.startsWith(src)) return undefined
      const text = await readFile(args.path, 'utf8')
      if (!text.includes('import.meta.url')) return undefined
      const emitted = relative(src, args.path).replace(/\.ts$/, '.js')
      return { contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(DIST + emitted)}, import.meta.url).href`), loader: 'ts' }
    })
  },
}

const result = await build({
  absWorkingDir: root,
  entryPoints: { index: 'src/index.ts', 'surfaces/cli/main': 'src/surfaces/cli/main.ts' },
  outdir: dist,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external,
  plugins: [importMetaUrl],
  // CommonJS packages call require(): give each ESM file one.
  banner: { js: "import { createRequire as __skillplaneRequire } from 'node:module'; const require = __skillplaneRequire(import.meta.url);" },
  sourcemap: 'linked',
  write: false,
  logLevel: 'warning',
})

await rm(join(dist, 'chunks'), { recursive: true, force: true })
for (const file of result.outputFiles) {
  const toDist = relative(dirname(file.path), dist) || '.'
  const text = file.path.endsWith('.js') ? file.text.replaceAll(DIST, `${toDist}/`) : file.text
  await mkdir(dirname(file.path), { recursive: true })
  await writeFile(file.path, text)
}
await chmod(join(dist, 'surfaces/cli/main.js'), 0o755)
