import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { Validator } from '@seriousme/openapi-schema-validator'
import $RefParser from '@apidevtools/json-schema-ref-parser'
import { databases } from '../../../test-support/databases.js'
import { openTestPlane } from '../../../test-support/fixtures.js'
import { defineSkill } from '../../../skill/define-skill.js'
import type { Skillplane } from '../../../agents/index.js'
import { createHttpApp } from '../create-http-app.js'

const [sqlite] = databases

const shared = z.object({ city: z.string().min(1) })
const tree = {
  type: 'object',
  properties: { root: { $ref: '#/$defs/node' } },
  required: ['root'],
  $defs: { node: { type: 'object', properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/node' } } } } },
}
const skills = [
  // Two skills with one schema object, and one with an equal schema of its own: one component for the three.
  defineSkill({
    key: 'weather_now',
    description: 'Weather now',
    class: 'safe',
    input: shared,
    output: z.object({ celsius: z.number() }),
    run: () => ({ celsius: 1 }),
  }),
  defineSkill({
    key: 'weather_later',
    description: 'Weather later',
    class: 'safe',
    input: shared,
    output: z.object({ celsius: z.number() }),
    run: () => ({ celsius: 2 }),
  }),
  defineSkill({ key: 'weather_then', description: 'Weather then', class: 'safe', input: z.object({ city: z.string().min(1) }), run: () => ({}) }),
  defineSkill({ key: 'lonely', description: 'A schema of its own', class: 'mutating', input: z.object({ n: z.number().int() }), run: () => ({}) }),
  defineSkill({ key: 'walk_tree', description: 'Schema with $defs', class: 'safe', input: tree, run: () => ({}) }),
]

type Doc = { paths: Record<string, any>; components: { schemas: Record<string, any>; requestBodies: Record<string, any>; responses: Record<string, any> } }

describe('/openapi.json skill operations', () => {
  let plane: Skillplane | undefined
  afterEach(async () => {
    await plane?.close()
  })

  async function open() {
    plane = await openTestPlane(sqlite!, { skills })
    const app = createHttpApp(plane)
    const key = (await plane.people.keys.create({ name: 'root', role: 'admin' }, plane.now())).key
    const document = async (from = app) => (await (await from.request('/openapi.json', { headers: { authorization: `Bearer ${key}` } })).json()) as Doc
    return { app, document }
  }

  it('writes identical schemas once, shared bodies and results as components, a lone one in place; every $ref resolves', async () => {
    const { document } = await open()
    const doc = await document()
    expect((await new Validator().validate(structuredClone(doc))).errors ?? []).toEqual([])
    const { schemas, requestBodies, responses } = doc.components
    expect(Object.keys(schemas).filter((name) => name.startsWith('weather_'))).toEqual(['weather_later_input', 'weather_later_output'])
    for (const key of ['weather_now', 'weather_later', 'weather_then']) {
      expect(doc.paths[`/api/skills/${key}/invoke`].post.requestBody).toEqual({ $ref: '#/components/requestBodies/weather_later_input' })
    }
    expect(requestBodies.weather_later_input.content['application/json'].schema.properties.input).toEqual({ $ref: '#/components/schemas/weather_later_input' })
    expect(doc.paths['/api/skills/weather_now/invoke'].post.responses['200']).toEqual({ $ref: '#/components/responses/weather_later_output' })
    expect(responses.weather_later_output.content['application/json'].schema.allOf[1].properties.data).toEqual({
      $ref: '#/components/schemas/weather_later_output',
    })
    expect(doc.paths['/api/skills/weather_then/invoke'].post.responses['200']).toEqual({ $ref: '#/components/responses/InvokeResult' })

    // One skill's own schema: its body written in place, no request body component.
    const lonely = doc.paths['/api/skills/lonely/invoke'].post
    expect(lonely).toMatchObject({ summary: 'Lonely (mutating)', operationId: 'invoke_lonely', tags: ['general'] })
    expect(lonely.requestBody.content['application/json'].schema.properties.input).toEqual({ $ref: '#/components/schemas/lonely_input' })
    expect(requestBodies.lonely_input).toBeUndefined()

    // A schema's own $defs resolve inside it: it carries an $id, others don't.
    expect(schemas.walk_tree_input.$id).toBe('urn:skillplane:schema:walk_tree_input')
    expect(schemas.lonely_input.$id).toBeUndefined()
    const resolved = (await $RefParser.dereference(structuredClone(doc))) as Doc
    expect(resolved.paths['/api/skills/lonely/invoke'].post.requestBody.content['application/json'].schema.properties.input).toMatchObject({
      properties: { n: { type: 'integer' } },
    })
  })

  it('after an edit serves what a new server would build: the raised class, the same components', async () => {
    const { document } = await open()
    await document()
    await plane!.skills.edit('weather_now', { class: 'dangerous' }, plane!.now())
    const after = await document()
    expect(after.paths['/api/skills/weather_now/invoke'].post.summary).toBe('Weather now (dangerous)')
    expect(after).toEqual(await document(createHttpApp(plane!)))
  })
})
