import { lstatSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import mime from 'mime-types'

export interface ConsoleAsset {
  body: Uint8Array
  /** Compressed once at load, for clients that accept gzip; null when it would not be smaller. */
  gzip: Uint8Array | null
  type: string
  /** Vite names built assets by their content hash: they never change under the same name. */
  immutable: boolean
}

/** Where the package's build puts the console: `dist/console`, from src/ (tests) and dist/ alike. */
export const CONSOLE_DIR = fileURLToPath(new URL('../../../dist/console', import.meta.url))

/**
 * The built console, read once into memory: a few hundred kilobytes, and serving from a fixed map
 * means no request path ever reaches the file system. Null when the console was not built.
 */
export function loadConsoleAssets(dir: string = CONSOLE_DIR): Map<string, ConsoleAsset> | null {
  // Every app a process makes (tests make hundreds) shares one read.
  if (!loaded.has(dir)) loaded.set(dir, readAssets(dir))
  return loaded.get(dir)!
}

const loaded = new Map<string, Map<string, ConsoleAsset> | null>()

function readAssets(dir: string): Map<string, ConsoleAsset> | null {
  let files: string[]
  try {
    if (!statSync(join(dir, 'index.html')).isFile()) return null
    files = readdirSync(dir, { recursive: true, encoding: 'utf8' })
  } catch {
    return null
  }
  const assets = new Map<string, ConsoleAsset>()
  for (const file of files) {
    const path = join(dir, file)
    // Regular files only: a symlink in the build could point anywhere.
    if (!lstatSync(path).isFile()) continue
    const name = '/' + relative(dir, path).split(sep).join('/')
    const type = mime.contentType(name.slice(name.lastIndexOf('/') + 1)) || 'application/octet-stream'
    const body = readFileSync(path)
    const gzip = gzipSync(body, { level: 9 })
    assets.set(name, { body, gzip: gzip.length < body.length * 0.9 ? gzip : null, type, immutable: name.startsWith('/assets/') })
  }
  return assets
}
