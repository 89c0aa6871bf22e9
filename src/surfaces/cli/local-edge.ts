import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Skillplane } from '../../agents/index.js'
import { findConfigFile } from '../../config/load-config.js'
import type { GlobalOptions } from './open-plane.js'

export interface LocalEdge {
  /** Resolves true once it is online, false if its process exits (or it is stopped) before. */
  online: Promise<boolean>
  stop(): void
}

const MAIN = fileURLToPath(new URL('./main.js', import.meta.url))
const SUPERVISOR = { id: 'serve', name: 'skillplane serve --edge' }

/**
 * `serve --edge NAME`: this host as an edge, in a child process that dials the server through the
 * real tunnel. Its token is kept (mode 0600) in the data dir, and enrolled anew when it no longer works.
 */
export async function startLocalEdge(plane: Skillplane, url: string, name: string, options: GlobalOptions): Promise<LocalEdge> {
  const dir = join(plane.status.dataDir, 'edges')
  const tokenFile = join(dir, `${name}.token`)
  let token = existsSync(tokenFile) ? readFileSync(tokenFile, 'utf8').trim() : ''
  if (!token || !(await plane.sources.edges.tokenValid(token))) {
    if (plane.sources.edges.get(name)?.revokedAt === null) await plane.sources.edges.revoke(name, SUPERVISOR)
    const enrolled = await plane.sources.edges.enroll({ name, labels: { host: 'local' } }, SUPERVISOR)
    if (!enrolled.ok) throw new Error(`enrolling the local edge "${name}" failed: ${enrolled.message}`)
    token = enrolled.token
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 })
  }
  const config = findConfigFile(options.config)
  const child = spawn(
    process.execPath,
    [MAIN, '--data-dir', resolve(options.dataDir), ...(config ? ['--config', config] : []), 'edge', '--manager', url, '--name', name, '--log-level', 'warn'],
    // The token goes by environment, never argv (which any local user can read).
    { env: { ...process.env, SKILLPLANE_EDGE_TOKEN: token }, stdio: ['ignore', 'inherit', 'inherit'] },
  )
  let stopping = false
  child.on('exit', (code, signal) => {
    if (!stopping) plane.logger.warn({ edge: name, code, signal }, 'the local edge process exited')
  })
  // No deadline: a loaded machine starts the child slowly, and serve says so when it comes up.
  const online = (async () => {
    while (!stopping && child.exitCode === null && child.signalCode === null) {
      if (plane.sources.edges.get(name)?.online) return true
      await new Promise((r) => setTimeout(r, 50))
    }
    return false
  })()
  return {
    online,
    stop() {
      stopping = true
      child.kill('SIGTERM')
    },
  }
}
