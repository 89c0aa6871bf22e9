import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { silentLogger } from '../test-support/fixtures.js'
import { defineSkill } from '../skill/define-skill.js'
import { createPlane, type Plane } from '../plane/index.js'

const dirs: string[] = []
const tempDir = () => dirs[dirs.push(mkdtempSync(join(tmpdir(), 'skillplane-sync-'))) - 1]!
const skill = (key: string) => defineSkill({ key, description: `The ${key} skill`, class: 'safe', input: z.object({}), run: () => ({}) })

describe('the catalog sync queue', () => {
  const open: Plane[] = []
  afterEach(async () => {
    await Promise.all(open.splice(0).map((p) => p.close()))
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
  })

  it('runs syncs asked for at once one after the other: the second sees what the first wrote', async () => {
    const plane = await createPlane({ config: { skills: [skill('one'), skill('two')] }, dataDir: tempDir(), logger: silentLogger() })
    open.push(plane)
    const [first, second] = await Promise.all([plane.skills.sync(), plane.skills.sync()])
    expect(first.changes.map((c) => c.message)).toEqual(expect.arrayContaining(['+ skill one (code, safe)', '+ skill two (code, safe)']))
    expect(second.changes).toEqual([])
    expect(plane.skills.row('one')).toBeDefined()
  })

  it('keeps working after a refused sync, and refuses every sync of a plane opened without its sources', async () => {
    const dataDir = tempDir()
    const full = await createPlane({ config: { skills: [skill('kept')] }, dataDir, logger: silentLogger(), sync: true })
    await full.close()
    const bare = await createPlane({ config: {}, dataDir, logger: silentLogger() })
    open.push(bare)
    // A config without skills over a catalog that has some: refused unless forced, and the queue goes on.
    await expect(bare.skills.sync()).rejects.toThrow(/orphan/)
    expect((await bare.skills.sync({ dryRun: true, force: true })).dryRun).toBe(true)
    const storeOnly = await createPlane({ config: { skills: [skill('kept')] }, dataDir: tempDir(), logger: silentLogger(), sources: false })
    open.push(storeOnly)
    await expect(storeOnly.skills.sync()).rejects.toThrow('a plane opened without its sources (sources: false) cannot sync the catalog')
  })
})
