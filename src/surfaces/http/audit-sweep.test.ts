import { readFileSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { databases, tempDir } from '../../test-support/databases.js'
import { admin, openTestPlane } from '../../test-support/fixtures.js'
import type { Skillplane } from '../../agents/index.js'
import { startHttpServer, type HttpServer } from './start-http-server.js'

describe.each(databases)('POST /api/audit/sweep on $name', (database) => {
  let plane: Skillplane | undefined
  let server: HttpServer | undefined
  afterEach(async () => {
    await server?.close()
    await plane?.close()
  })

  it('applies the row cap now for an admin, exports first, and audits who asked', async () => {
    const exportDir = tempDir('skillplane-export-')
    plane = await openTestPlane(database, { audit: { maxRows: 2, exportDir } })
    server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    const adminKey = (await plane.people.keys.create({ name: 'alice', role: 'admin' }, plane.now())).key
    const operatorKey = (await plane.people.keys.create({ name: 'oscar', role: 'operator' }, plane.now())).key
    for (const message of ['a', 'b', 'c', 'd', 'e']) await plane.invoke('echo', { message }, { caller: admin })
    const sweep = (key: string) => fetch(`${server!.url}/api/audit/sweep`, { method: 'POST', headers: { authorization: `Bearer ${key}` } })

    const refused = await sweep(operatorKey)
    expect(refused.status).toBe(403)
    expect((await plane.audit.query({ limit: 10 })).items).toHaveLength(5)

    const answer = await sweep(adminKey)
    expect(answer.status).toBe(200)
    const report = (await answer.json()) as { deleted: number; exported: number; file: string }
    expect(report).toMatchObject({ cutoff: null, deleted: 3, exported: 3, error: null })
    const exported = readFileSync(report.file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line).input.message)
    expect(exported).toEqual(['a', 'b', 'c'])
    expect((await plane.audit.query({ limit: 10 })).items.map((e) => (e.input as { message: string }).message)).toEqual(['e', 'd'])
    const [event] = (await plane.audit.events.list({ kind: 'audit.sweep', limit: 5 })).items
    expect(event).toMatchObject({ actor: { name: 'alice' }, details: { deleted: 3, exported: 3, file: report.file, maxRows: 2 } })
  })
})
