import { describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { defineSkill, type DefinedSkill, definitionOrigin } from './define-skill.js'
import { DefinitionError } from './definition-error.js'
import { Registry } from '../registry/registry.js'

const logger = () => ({ debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() })
const register = (registry: Registry, def: DefinedSkill<any, any>) => registry.register(def, { source: 'code', origin: definitionOrigin(def) })

describe('defineSkill and registration', () => {
  it('derives the JSON Schema, slug, tool name and title from one definition', () => {
    const registry = new Registry({ logger: logger(), defaultTimeoutMs: 30_000 })
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
      expect(() => defineSkill({ key, description: 'x', run: () => null })).toThrow(/invalid skill key .* lower_snake/)
    },
  )

  it('names both definitions when two skills share a key', () => {
    const registry = new Registry({ logger: logger(), defaultTimeoutMs: 1000 })
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

  it('registers a skill without a class as safe, with a warning', () => {
    const log = logger()
    const registry = new Registry({ logger: log, defaultTimeoutMs: 1000 })
    const skill = register(registry, defineSkill({ key: 'no_class', description: 'x', run: () => 1 }))
    expect(skill.class).toBe('safe')
    expect(skill.classDeclared).toBe(false)
    expect(log.warn).toHaveBeenCalledWith(expect.objectContaining({ skill: 'no_class' }), expect.stringContaining('declares no class'))
  })

  it('refuses bad definitions with a clear error', () => {
    const registry = new Registry({ logger: logger(), defaultTimeoutMs: 1000 })
    expect(() => register(registry, defineSkill({ key: 'no_desc', description: ' ', run: () => 1 }))).toThrow('description is required')
    expect(() => register(registry, defineSkill({ key: 'bad_class', description: 'x', class: 'risky' as 'safe', run: () => 1 }))).toThrow(
      'class must be one of safe, mutating, dangerous, got "risky"',
    )
    expect(() =>
      register(
        registry,
        defineSkill({ key: 'bad_schema', description: 'x', input: { type: 'object', properties: { a: { type: 'nonsense' } } }, run: () => 1 }),
      ),
    ).toThrow(/bad_schema.*invalid JSON Schema/)
    expect(() => register(registry, defineSkill({ key: 'date_input', description: 'x', input: z.object({ when: z.date() }), run: () => 1 }))).toThrow(
      /can't be expressed as JSON Schema/,
    )
    expect(() => defineSkill({ key: 'no_run', description: 'x' } as never)).toThrow('has no run (or execute) function')
    expect(() => register(registry, defineSkill({ key: 'forever', description: 'x', timeoutMs: 3e9, run: () => 1 }))).toThrow(
      'timeoutMs must be a positive number of milliseconds up to 2147483647',
    )
  })
})
