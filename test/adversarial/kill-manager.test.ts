import { spawn, type ChildProcess } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { tempDir, waitFor } from '../../src/test-support/databases.js'

const MAIN = join(import.meta.dirname, '../../dist/surfaces/cli/main.js')

const children = new Set<ChildProcess>()
afterEach(() => {
  for (const child of children) child.kill('SIGKILL')
  children.clear()
})

/** `skillplane serve` as a real process; resolves with its URL (and the admin key on a first start). */
function serve(dataDir: string, config: string) {
  const child = spawn(process.execPath, [MAIN, 'serve', '--port', '0', '--data-dir', dataDir, '--config', config], {
    env: { ...process.env, SKILLPLANE_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.add(child)
  let out = ''
  const ready = new Promise<{ url: string; key: string | null }>((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      out += chunk
      const url = /api\s+(http:\/\/\S+)\/api\/skills/.exec(out)?.[1]
      const key = /admin key \(shown once; store it now\): (sp_\S+)/.exec(out)?.[1] ?? null
      if (url && (key || /try:|keys exist|hint/i.test(out))) resolve({ url, key })
    })
    child.on('exit', () => reject(new Error(`serve exited early: ${out}`)))
  })
  return { child, ready }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe('kill -9 of a manager with calls and subprocesses in flight', () => {
  it('takes its subprocess groups with it, and the next start records the calls interrupted', async () => {
    const root = tempDir('skillplane-kill-')
    const trace = join(root, 'trace')
    mkdirSync(trace)
    // A pack and an instruction-skill script that each leave a grandchild behind and would touch a
    // side-effect file 2.5 s later: neither may happen once their manager is gone.
    const body = (what: string) =>
      `#!/bin/sh\n/bin/cat > /dev/null 2>&1\necho $$ >> ${trace}/pids\n` +
      `( /bin/sleep 2.5; /usr/bin/touch ${trace}/${what}-grandchild-$$ ) &\necho $! >> ${trace}/pids\n` +
      `/bin/sleep 2.5\n/usr/bin/touch ${trace}/${what}-$$\necho '{}'\n`
    mkdirSync(join(root, 'packs', 'slow_side_effect'), { recursive: true })
    writeFileSync(join(root, 'packs', 'slow_side_effect', 'run.sh'), body('pack'))
    chmodSync(join(root, 'packs', 'slow_side_effect', 'run.sh'), 0o755)
    writeFileSync(
      join(root, 'packs', 'slow_side_effect', 'skill.json'),
      JSON.stringify({ name: 'slow_side_effect', description: 'Touches a file after 2.5 s', entry: 'run.sh', class: 'safe', timeout_seconds: 20 }),
    )
    mkdirSync(join(root, 'skills', 'side-effects', 'scripts'), { recursive: true })
    writeFileSync(join(root, 'skills', 'side-effects', 'SKILL.md'), '---\nname: side-effects\ndescription: Runs a slow script.\n---\nRun scripts/slow.sh.\n')
    writeFileSync(join(root, 'skills', 'side-effects', 'scripts', 'slow.sh'), body('script'))
    chmodSync(join(root, 'skills', 'side-effects', 'scripts', 'slow.sh'), 0o755)
    const config = join(root, 'skillplane.config.mjs')
    writeFileSync(
      config,
      `export default ${JSON.stringify({ packDirs: [join(root, 'packs')], skillDirs: [join(root, 'skills')], skillScripts: { timeoutMs: 20_000 } })}\n`,
    )
    const dataDir = join(root, 'data')

    const first = serve(dataDir, config)
    const { url, key } = await first.ready
    const invoke = (skill: string, input: unknown) =>
      fetch(`${url}/api/skills/${skill}/invoke`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ input }),
      }).catch(() => null)
    const calls = [
      ...Array.from({ length: 3 }, () => invoke('slow_side_effect', {})),
      ...Array.from({ length: 2 }, () => invoke('run_skill_script', { skill: 'side-effects', script: 'scripts/slow.sh' })),
    ]
    // Every subprocess and grandchild has written its pid.
    await waitFor(() => existsSync(join(trace, 'pids')) && readFileSync(join(trace, 'pids'), 'utf8').trim().split('\n').length === 10, 10_000)
    const killedAt = Date.now()
    first.child.kill('SIGKILL')
    await Promise.all(calls)
    const pids = readFileSync(join(trace, 'pids'), 'utf8').trim().split('\n').map(Number)
    await waitFor(() => pids.every((pid) => !alive(pid)), 2_000).catch(() => {})
    const survivors = pids.filter(alive)
    // Past the moment the side effects were due.
    await new Promise((r) => setTimeout(r, Math.max(0, 3_500 - (Date.now() - killedAt))))
    const sideEffects = readdirSync(trace).filter((name) => name !== 'pids')

    const second = serve(dataDir, config)
    const restarted = await second.ready
    const audit = async (status: string) =>
      ((await (await fetch(`${restarted.url}/api/audit?status=${status}`, { headers: { authorization: `Bearer ${key}` } })).json()) as { items: unknown[] })
        .items.length
    const interrupted = await audit('interrupted')
    const stuck = await audit('running')
    console.log(
      `kill -9 under load: 5 calls in flight, ${pids.length} subprocesses and grandchildren, ${survivors.length} alive 2 s after the kill, ` +
        `${sideEffects.length} side effects after the kill, ${interrupted} rows interrupted, ${stuck} rows stuck running`,
    )
    expect(survivors).toEqual([])
    expect(sideEffects).toEqual([])
    expect({ interrupted, stuck }).toEqual({ interrupted: 5, stuck: 0 })
  })
})
