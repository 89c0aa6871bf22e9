import { describe, expect, it } from 'vitest'
import { markSecretFields, redact, REDACTED } from './redact.js'

describe('redact', () => {
  it('replaces schema-marked secrets and credential-like keys at any depth, leaving the original intact', () => {
    const schema = {
      type: 'object',
      properties: {
        pin: { type: 'string', writeOnly: true },
        otp: { type: 'string', 'x-secret': true },
        phrase: { type: 'string', format: 'password' },
        hosts: { type: 'array', items: { type: 'object', properties: { sshKey: { type: 'string', writeOnly: true } } } },
      },
    }
    const input = {
      pin: '1',
      otp: '2',
      phrase: '3',
      hosts: [{ name: 'a', sshKey: '4' }],
      Authorization: 'Bearer 5',
      deep: { api_key: '6', accessToken: '7', client_secret: '8', userPassword: '9', keep: 'visible' },
    }
    expect(redact(input, schema)).toEqual({
      pin: REDACTED,
      otp: REDACTED,
      phrase: REDACTED,
      hosts: [{ name: 'a', sshKey: REDACTED }],
      Authorization: REDACTED,
      deep: { api_key: REDACTED, accessToken: REDACTED, client_secret: REDACTED, userPassword: REDACTED, keep: 'visible' },
    })
    expect(input.pin).toBe('1')
  })

  it('leaves scalars and unmarked values alone', () => {
    expect(redact('plain')).toBe('plain')
    expect(redact(null)).toBe(null)
    expect(redact({ tokens_used: 3, keyCount: 2 })).toEqual({ tokens_used: 3, keyCount: 2 })
    expect(redact({ 'X-Api-Key': 'a', SESSION_TOKEN: 'b', privateKey: 'c' })).toEqual({ 'X-Api-Key': REDACTED, SESSION_TOKEN: REDACTED, privateKey: REDACTED })
    expect(redact({ name: 'x', passage: 'keep' })).toEqual({ name: 'x', passage: 'keep' })
  })

  it('serialises to the same JSON whether or not anything needed hiding, and still hides what is deep, dated or marked', () => {
    const clean = { query: 'x', filters: [{ field: 'a', values: [1, 2] }], nested: { page: 2 } }
    expect(JSON.stringify(redact(clean))).toBe(JSON.stringify(clean))
    // A secret name found only after many clean ones, a date, a secret schema on a scalar, scrubbing.
    expect(redact({ a: [{ b: { c: 1, password: 'p' } }] })).toEqual({ a: [{ b: { c: 1, password: REDACTED } }] })
    expect(redact({ at: new Date(0) })).toEqual({ at: '1970-01-01T00:00:00.000Z' })
    expect(redact('1234', { type: 'string', writeOnly: true })).toBe(REDACTED)
    expect(redact({ note: 'the code is 12345' }, null, { scrub: new Set(['12345']) })).toEqual({ note: `the code is ${REDACTED}` })
    let deep: unknown = 'bottom'
    for (let i = 0; i < 70; i++) deep = { next: deep }
    expect(JSON.stringify(redact(deep))).toContain('[TOO DEEP]')
  })
})

describe('markSecretFields', () => {
  it('marks writeOnly each field redaction hides (by name or schema), and no other', () => {
    const schema = {
      type: 'object',
      properties: {
        apiKey: { type: 'string' },
        otp: { type: 'string', 'x-secret': true },
        phrase: { type: 'string', format: 'password' },
        tokens_used: { type: 'integer' },
        user: { type: 'string' },
      },
    }
    const marked = markSecretFields(schema)
    expect(marked.properties).toEqual({
      apiKey: { type: 'string', writeOnly: true },
      otp: { type: 'string', 'x-secret': true, writeOnly: true },
      phrase: { type: 'string', format: 'password', writeOnly: true },
      tokens_used: { type: 'integer' },
      user: { type: 'string' },
    })
    // Each field marked is one redact() hides.
    const hidden = redact({ apiKey: 'a', otp: 'b', phrase: 'c', tokens_used: 1, user: 'u' }, schema)
    expect(hidden).toEqual({ apiKey: REDACTED, otp: REDACTED, phrase: REDACTED, tokens_used: 1, user: 'u' })
    expect(schema.properties.apiKey).toEqual({ type: 'string' })
  })

  it("leaves a form without a schema, or without an object's properties, as it is (a plain-JS skill's elicitation)", () => {
    expect(markSecretFields(undefined)).toBeUndefined()
    expect(markSecretFields(null)).toBeNull()
    expect(markSecretFields('form')).toBe('form')
    expect(markSecretFields({ type: 'object' })).toEqual({ type: 'object' })
    expect(markSecretFields({ type: 'object', properties: ['password'] })).toEqual({ type: 'object', properties: ['password'] })
  })
})
