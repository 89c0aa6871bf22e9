import { afterEach, describe, expect, it } from 'vitest'
import { databases } from '../test-support/databases.js'
import { openTestPlane } from '../test-support/fixtures.js'
import type { Skillplane } from '../agents/index.js'

describe.each(databases)('API key revocation on $name', (database) => {
  const planes: Skillplane[] = []
  afterEach(async () => {
    await Promise.all(planes.splice(0).map((p) => p.close()))
  })

  it('stops a revoked key at once on the revoking manager and within a second on a peer', async () => {
    const location = await database.create()
    const [a, b] = [await openTestPlane(database, {}, location), await openTestPlane(database, {}, location)]
    planes.push(a, b)
    const { key } = await a.people.keys.create({ name: 'ci', role: 'operator' }, a.now())
    // Both managers have just authenticated (and remembered) the key.
    expect(await a.people.keys.authenticate(key)).toMatchObject({ name: 'ci' })
    expect(await b.people.keys.authenticate(key)).toMatchObject({ name: 'ci' })
    expect(await a.people.keys.revoke('ci', a.now())).toBe(1)
    expect(await a.people.keys.authenticate(key)).toBeNull()
    await new Promise((r) => setTimeout(r, 1_050))
    expect(await b.people.keys.authenticate(key)).toBeNull()
  })
})
