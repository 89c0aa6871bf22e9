import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { databases, tempDir } from '../../test-support/databases.js'
import { admin as adminCaller, openTestPlane } from '../../test-support/fixtures.js'
import type { Skillplane } from '../../agents/index.js'
import { startHttpServer, type HttpServer } from './start-http-server.js'

/** A schemaless pack (any input is accepted) running the given shell script. */
function pack(root: string, name: string, script: string, manifest: Record<string, unknown> = {}): void {
  const dir = join(root, name)
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'run.sh'), `#!/bin/sh\n${script}\n`)
  chmodSync(join(dir, 'run.sh'), 0o755)
  writeFileSync(join(dir, 'skill.json'), JSON.stringify({ name, description: `The ${name} pack`, entry: 'run.sh', class: 'safe', ...manifest }))
}

describe('hostile bodies and results over HTTP', () => {
  let plane: Skillplane | undefined
  let server: HttpServer | undefined
  afterEach(async () => {
    await server?.close()
    await plane?.close()
  })

  async function start() {
    const root = tempDir('skillplane-hostile-')
    const ran = join(tempDir(), 'ran')
    // A mutating pack with no schema: every key it is sent reaches it, so approvers must see them all.
    pack(root, 'file_ticket', `cat > /dev/null; touch ${ran}; echo '{"filed":true}'`, { class: 'mutating' })
    pack(root, 'hidden_result', `cat > /dev/null; echo '{"shown":1,"__proto__":{"hidden":2}}'`)
    // 200,000 levels of nesting: parses fine, overflows the stack when serialised recursively.
    pack(root, 'deep_result', `cat > /dev/null; head -c 200000 /dev/zero | tr '\\000' '['; head -c 200000 /dev/zero | tr '\\000' ']'`)
    pack(root, 'echo_input', 'cat')
    pack(root, 'odd_category', 'cat', { category: '__proto__' })
    plane = await openTestPlane(databases[0]!, { packDirs: [root] })
    server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    const admin = (await plane.people.keys.create({ name: 'alice', role: 'admin' }, plane.now())).key
    const operator = (await plane.people.keys.create({ name: 'oscar', role: 'operator' }, plane.now())).key
    const post = async (path: string, raw: string, key = admin) => {
      const response = await fetch(server!.url + path, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: raw,
      })
      return { status: response.status, body: (await response.json()) as any }
    }
    return { ran, post, admin, operator, plane: plane! }
  }

  it('refuses an input key "__proto__" that approvers and the audit could not see, before anything runs', async () => {
    const { ran, post, operator, plane } = await start()
    const body = '{"input":{"title":"harmless","__proto__":{"cmd":"rm -rf /srv"}}}'
    // Through an LLM-like caller (an operator of a mutating skill without approval would run it):
    // either way the call stops at input validation, so no approval request hides the key.
    const refused = await post('/api/skills/file_ticket/invoke', body, operator)
    expect(refused.status).toBe(400)
    expect(refused.body.error).toMatchObject({ code: 'invalid_input', message: expect.stringContaining('"__proto__" key at /__proto__') })
    expect(existsSync(ran)).toBe(false)
    expect((await plane.approvals.list({ limit: 10 })).items).toEqual([])
    // Nested ones too, and the audit row keeps the key it was refused for.
    const nested = await post('/api/skills/echo_input/invoke', '{"input":{"a":[{"__proto__":{"x":1}}]}}')
    expect(nested.body.error.message).toContain('/a/0/__proto__')
    const row = await plane.audit.get(nested.body.callId)
    expect(row).toMatchObject({ status: 'error', error: { code: 'invalid_input' } })
    expect(JSON.stringify(row!.input)).toBe('{"a":[{"__proto__":{"x":1}}]}')
  })

  it('audits a result key "__proto__" byte for byte, as the client receives it', async () => {
    const { post, plane } = await start()
    const result = await post('/api/skills/hidden_result/invoke', '{"input":{}}')
    expect(result.status).toBe(200)
    expect(JSON.stringify(result.body.data)).toBe('{"shown":1,"__proto__":{"hidden":2}}')
    expect(JSON.stringify((await plane.audit.get(result.body.callId))!.result)).toBe('{"shown":1,"__proto__":{"hidden":2}}')
  })

  it('refuses too deep results and inputs, so the audit and the client agree', async () => {
    const { post, plane } = await start()
    const deep = await post('/api/skills/deep_result/invoke', '{"input":{}}')
    expect(deep.status).toBe(502)
    expect(deep.body.error).toMatchObject({ code: 'invalid_output', message: expect.stringContaining('nests deeper than 64 levels') })
    expect(await plane.audit.get(deep.body.callId)).toMatchObject({ status: 'error', error: { code: 'invalid_output' } })

    const deepInput = `{"input":{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`
    const refused = await post('/api/skills/echo_input/invoke', deepInput)
    expect(refused.status).toBe(400)
    expect(refused.body.error).toMatchObject({ code: 'invalid_input', message: expect.stringContaining('nests deeper than 64 levels') })
    expect(await plane.audit.get(refused.body.callId)).toMatchObject({ status: 'error', error: { code: 'invalid_input' } })
    // 64 levels still pass: the input object and 63 arrays inside it.
    const ok = await post('/api/skills/echo_input/invoke', `{"input":{"a":${'['.repeat(63)}1${']'.repeat(63)}}}`)
    expect(ok.body).toMatchObject({ ok: true })
  })

  it('lists a denied skill whose category is "__proto__" for templates like any other', async () => {
    const { plane } = await start()
    expect(await plane.policies.set({ skill: 'odd_category', level: 'global', decision: 'DENY' }, adminCaller, plane.now())).toMatchObject({ ok: true })
    const view = plane.skills.templateView(adminCaller, null)
    expect(Object.hasOwn(view.denied, '__proto__')).toBe(true)
    expect(view.denied['__proto__']).toEqual(['odd_category'])
  })
})
