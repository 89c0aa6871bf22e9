// `npm start`'s build step: runs `npm run build` only when a build input changed since the last
// build (a file added, removed, edited or touched), so a start with no change starts at once.
// The fingerprint of the inputs (path, size, mtime) is kept in dist/.build-inputs after each build.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const stampFile = join(root, 'dist', '.build-inputs')
// What `npm run build` reads: the server's sources and the console's, with their configs, and the bundler's script.
const inputs = ['src', 'console', 'tsconfig.json', 'package.json', 'package-lock.json', join('scripts', 'bundle.mjs')]
// Written by the build itself (the console's API types), or not an input at all.
const skipped = new Set(['node_modules', 'dist', join('console', 'src', 'api', 'schema.d.ts')])

function fingerprint() {
  const hash = createHash('sha256')
  const visit = (path) => {
    const rel = relative(root, path)
    if (skipped.has(rel) || skipped.has(rel.split('/').pop())) return
    const stat = statSync(path, { throwIfNoEntry: false })
    if (!stat) return
    if (stat.isDirectory()) {
      for (const name of readdirSync(path).sort()) visit(join(path, name))
    } else if (!rel.endsWith('.test.ts') && !rel.endsWith('.test.tsx')) {
      hash.update(`${rel}\0${stat.size}\0${stat.mtimeMs}\n`)
    }
  }
  for (const input of inputs) visit(join(root, input))
  return hash.digest('hex')
}

const before = fingerprint()
if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === before) {
  console.error('build: dist/ is up to date with src/ and console/ (nothing changed since the last build)')
} else {
  console.error('build: sources changed since the last build; building')
  const built = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' })
  if (built.status !== 0) process.exit(built.status ?? 1)
  // The fingerprint from before the build: an edit made while it ran is built next time.
  writeFileSync(stampFile, before)
}
