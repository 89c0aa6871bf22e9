import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { defineSkill, DefinitionError, createSkillplane } from '../index.js'
import { type DefinedSkill, definitionOrigin } from './define-skill.js'
import { Registry } from '../registry/registry.js'
import { tempDir } from '../test-support/databases.js'
import { silentLogger } from '../test-support/fixtures.js'

const CHOICES = '"safe" (reads only), "mutating" (changes state) or "dangerous" (destructive)'
const register = (registry: Registry, def: DefinedSkill<any, any>) => registry.register(def, { source: 'code', origin: definitionOrigin(def) })

describe('defineSkill and registration', () => {
  it('derives the JSON Schema, slug, tool name and title from one definition', () => {
    const registry = new Registry({ defaultTimeoutMs: 30_000 })
    const skill = register(
      registry,
      defineSkill({
        key: 'detect_orphan_volumes',
        description: 'List volumes whose instance is gone',
        class: 'safe',
        tags: ['storage', 'storage'],
        input: z.object({ minAgeHours: z.number().int().min(1).default(24) }),
        output: z.object({ orphanCount: z.number() }),
        run: () => ({ orphanCount: 0 }),
      }),
    )
    expect(skill).toMatchObject({
      slug: 'detect-orphan-volumes',
      toolName: 'detect_orphan_volumes',
      title: 'Detect orphan volumes',
      scope: 'manager',
      category: 'general',
      tags: ['storage'],
      timeoutMs: 30_000,
    })
    expect(skill.input.jsonSchema).toEqual({
      type: 'object',
      properties: { minAgeHours: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, default: 24 } },
    })
    expect(skill.output!.jsonSchema).toMatchObject({ required: ['orphanCount'] })
    expect(skill.origin).toMatch(/define-skill\.test\.ts:\d+$/)
  })

  it.each([['CamelCase'], ['has-hyphen'], ['_leading'], ['trailing_'], ['double__underscore'], ['9starts_with_digit'], ['a'.repeat(65)], ['']])(
    'rejects the key %j with a message naming the rules',
    (key) => {
      expect(() => defineSkill({ key, description: 'x', class: 'safe', run: () => null })).toThrow(/invalid skill key .* lower_snake/)
    },
  )

  it('names both definitions when two skills share a key', () => {
    const registry = new Registry({ defaultTimeoutMs: 1000 })
    const first = defineSkill({ key: 'twin', description: 'first', class: 'safe', run: () => 1 })
    const second = defineSkill({ key: 'twin', description: 'second', class: 'safe', run: () => 2 })
    register(registry, first)
    let error: unknown
    try {
      register(registry, second)
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(DefinitionError)
    const message = (error as Error).message
    expect(message).toMatch(/^duplicate skill key "twin": defined by code at .*define-skill\.test\.ts:\d+ and by code at .*define-skill\.test\.ts:\d+$/)
    expect(definitionOrigin(first)).not.toBe(definitionOrigin(second))
  })

  it('refuses a definition without a class, never taking it as safe', () => {
    expect(() => defineSkill({ key: 'no_class', description: 'x', run: () => 1 } as never)).toThrow(
      new RegExp(`^defineSkill "no_class" \\(src/skill/define-skill\\.test\\.ts:\\d+\\): class is required: declare ${escape(CHOICES)}$`),
    )
    expect(() => defineSkill({ key: 'null_class', description: 'x', class: undefined, run: () => 1 } as never)).toThrow('class is required')
  })

  it('refuses unknown fields by name, suggesting the field meant', () => {
    let error: unknown
    try {
      defineSkill({ key: 'wipe_disk', description: 'Wipe a disk', clas: 'dangerous', run: () => 1 } as never)
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(DefinitionError)
    expect((error as Error).message).toMatch(
      /^defineSkill "wipe_disk" \(src\/skill\/define-skill\.test\.ts:\d+\): unknown field "clas" \(did you mean "class"\?\)$/,
    )
    expect(() => defineSkill({ key: 'typos', description: 'x', class: 'safe', tag: ['a'], imput: {}, frobnicate: 1, run: () => 1 } as never)).toThrow(
      /: unknown field "tag" \(did you mean "tags"\?\); unknown field "imput" \(did you mean "input"\?\); unknown field "frobnicate"$/,
    )
    expect(() => defineSkill({ key: 'ai_sdk', description: 'x', class: 'safe', inputschema: {}, run: () => 1 } as never)).toThrow(
      'unknown field "inputschema" (did you mean "inputSchema"?)',
    )
  })

  it('refuses, when the plane starts, a defined skill whose class was dropped or misspelt afterwards', async () => {
    const wipe = defineSkill({ key: 'wipe_disk', description: 'Wipe a disk', class: 'dangerous', run: () => 1 })
    const start = (skill: object) =>
      createSkillplane({ dataDir: tempDir('skillplane-define-'), logger: silentLogger(), config: { skills: [skill as DefinedSkill] } })
    const { class: _dropped, ...unclassed } = wipe
    await expect(start({ ...unclassed, clas: 'dangerous' })).rejects.toThrow(
      /^skill "wipe_disk" \(src\/skill\/define-skill\.test\.ts:\d+\): unknown field "clas" \(did you mean "class"\?\)$/,
    )
    await expect(start(unclassed)).rejects.toThrow(new RegExp(`^skill "wipe_disk" \\(.*\\): class is required: declare ${escape(CHOICES)}$`))
  })

  it('refuses bad definitions with a clear error', () => {
    const registry = new Registry({ defaultTimeoutMs: 1000 })
    expect(() => register(registry, defineSkill({ key: 'no_desc', description: ' ', class: 'safe', run: () => 1 }))).toThrow('description is required')
    expect(() => register(registry, defineSkill({ key: 'bad_class', description: 'x', class: 'risky' as 'safe', run: () => 1 }))).toThrow(
      'class must be one of safe, mutating, dangerous, got "risky"',
    )
    expect(() =>
      register(
        registry,
        defineSkill({ key: 'bad_schema', description: 'x', class: 'safe', input: { type: 'object', properties: { a: { type: 'nonsense' } } }, run: () => 1 }),
      ),
    ).toThrow(/bad_schema.*invalid JSON Schema/)
    expect(() =>
      register(registry, defineSkill({ key: 'date_input', description: 'x', class: 'safe', input: z.object({ when: z.date() }), run: () => 1 })),
    ).toThrow(/can't be expressed as JSON Schema/)
    expect(() => defineSkill({ key: 'no_run', description: 'x', class: 'safe' } as never)).toThrow('has no run (or execute) function')
    expect(() => register(registry, defineSkill({ key: 'forever', description: 'x', class: 'safe', timeoutMs: 3e9, run: () => 1 }))).toThrow(
      'timeoutMs must be a positive number of milliseconds up to 2147483647',
    )
  })
})

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
