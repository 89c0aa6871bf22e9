import { describe, expect, it } from 'vitest'
import { redact, REDACTED } from './redact.js'

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
})
