import { afterEach, describe, expect, expectTypeOf, it } from 'vitest'
import { z } from 'zod'
import { defineSkill } from './define-skill.js'
import type { Envelope } from './skill-types.js'
import { databases } from '../test-support/databases.js'
import { admin, silentLogger } from '../test-support/fixtures.js'
import { createSkillplane, type Skillplane } from '../agents/index.js'

const [sqlite] = databases

// The AI SDK's names for the same fields, and a caller that invokes it by definition.
const convert = defineSkill({
  key: 'convert_celsius',
  description: 'Convert a temperature from Celsius to Fahrenheit',
  class: 'safe',
  inputSchema: z.object({ celsius: z.number().min(-273.15) }),
  outputSchema: z.object({ fahrenheit: z.number() }),
  execute: ({ celsius }) => ({ fahrenheit: celsius * 1.8 + 32 }),
})
const broken = defineSkill({
  key: 'convert_broken',
  description: 'Returns what its output schema refuses',
  class: 'safe',
  inputSchema: z.object({}),
  outputSchema: z.object({ fahrenheit: z.number() }),
  execute: () => ({ fahrenheit: 'hot' }) as never,
})
const report = defineSkill({
  key: 'weather_report',
  description: 'Report a temperature in both scales',
  class: 'safe',
  input: z.object({ celsius: z.number() }),
  run: async ({ celsius }, ctx) => {
    const converted = await ctx.invoke(convert, { celsius })
    expectTypeOf(converted).toEqualTypeOf<Envelope<{ fahrenheit: number }>>()
    if (!converted.ok) return { error: converted.error.code }
    return { text: `${celsius} °C is ${converted.data.fahrenheit} °F`, parent: converted.callId }
  },
})

describe('definition names', () => {
  const planes: Skillplane[] = []
  afterEach(async () => {
    await Promise.all(planes.splice(0).map((p) => p.close()))
  })

  it('accepts inputSchema, outputSchema and execute: validated, run and audited like input, output and run', async () => {
    const where = await sqlite!.create()
    const plane = await createSkillplane({ config: { skills: [convert, broken, report] }, ...where, logger: silentLogger(), sync: true })
    planes.push(plane)

    expect(plane.skills.get('convert_celsius')!.input.jsonSchema).toMatchObject({ required: ['celsius'] })
    expect(await plane.invoke('convert_celsius', { celsius: 100 }, { caller: admin })).toMatchObject({ ok: true, data: { fahrenheit: 212 } })
    const refused = await plane.invoke('convert_celsius', { celsius: -300 }, { caller: admin })
    expect(refused).toMatchObject({ ok: false, error: { code: 'invalid_input', message: expect.stringContaining('celsius') } })
    expect(await plane.invoke('convert_broken', {}, { caller: admin })).toMatchObject({ ok: false, error: { code: 'invalid_output' } })

    // ctx.invoke with the callee's definition runs the registered skill as a child call.
    const outer = await plane.invoke('weather_report', { celsius: 20 }, { caller: admin })
    expect(outer).toMatchObject({ ok: true, data: { text: '20 °C is 68 °F' } })
    const child = await plane.audit.get((outer as { data: { parent: string } }).data.parent)
    expect(child).toMatchObject({ skill: 'convert_celsius', parentCallId: outer.callId, status: 'ok' })
  })

  it('refuses a definition that gives both names of one field, or no executor under either', () => {
    const both = { key: 'both_names', description: 'x', class: 'safe' as const, input: z.object({}), inputSchema: z.object({}), run: () => ({}) }
    expect(() => defineSkill(both)).toThrow('has both input and inputSchema: they are one field under two names, give one')
    expect(() => defineSkill({ key: 'two_runs', description: 'x', class: 'safe', run: () => 1, execute: () => 2 })).toThrow('has both run and execute')
    expect(() => defineSkill({ key: 'out_twice', description: 'x', class: 'safe', output: z.object({}), outputSchema: z.object({}), run: () => ({}) })).toThrow(
      'has both output and outputSchema',
    )
    expect(() => defineSkill({ key: 'no_executor', description: 'x', class: 'safe', inputSchema: z.object({}) })).toThrow(
      'defineSkill "no_executor" (src/skill/definition-names.test.ts:',
    )
    expect(() => defineSkill({ key: 'no_executor', description: 'x', class: 'safe' })).toThrow('has no run (or execute) function')
  })
})
