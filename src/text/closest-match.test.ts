import { describe, expect, it } from 'vitest'
import { closestMatch, didYouMean, unknownField } from './index.js'

describe('closestMatch', () => {
  it('finds the word meant by a dropped, swapped, added or recased letter', () => {
    expect(closestMatch('clas', ['key', 'class', 'scope'])).toBe('class')
    expect(closestMatch('calss', ['key', 'class', 'scope'])).toBe('class')
    expect(closestMatch('descriptoin', ['title', 'description'])).toBe('description')
    expect(closestMatch('timeoutms', ['timeoutMs'])).toBe('timeoutMs')
    expect(closestMatch('apiKey', ['model', 'apiKeyEnv', 'baseURL'])).toBe('apiKeyEnv')
    expect(closestMatch('env', ['environment'])).toBe('environment')
    expect(closestMatch('tagss', ['tags', 'title'])).toBe('tags')
    expect(closestMatch('inputschema', ['input', 'inputSchema'])).toBe('inputSchema')
    expect(closestMatch('calculat', ['calculate', 'calendar'])).toBe('calculate')
  })

  it('suggests nothing when no candidate is near, or the word is itself a candidate', () => {
    expect(closestMatch('zzz', ['key', 'class'])).toBeUndefined()
    expect(closestMatch('ab', ['cd'])).toBeUndefined()
    expect(closestMatch('frobnicate', ['description', 'category'])).toBeUndefined()
    expect(closestMatch('extra', ['entry', 'tags'])).toBeUndefined()
    expect(closestMatch('sclas', ['class'])).toBeUndefined()
    expect(closestMatch('x', [])).toBeUndefined()
    expect(closestMatch('en', ['environment'])).toBeUndefined()
    expect(closestMatch('key', ['key'])).toBeUndefined()
  })

  it('prefers the nearest candidate, then the first listed', () => {
    expect(closestMatch('tag', ['tags', 'tab'])).toBe('tags')
    expect(closestMatch('scop', ['scope', 'scoop'])).toBe('scope')
  })

  it('words the suggestion for a message', () => {
    expect(didYouMean('clas', ['class'])).toBe(' (did you mean "class"?)')
    expect(didYouMean('zzz', ['class'])).toBe('')
    expect(unknownField('clas', ['class'])).toBe('unknown field "clas" (did you mean "class"?)')
    expect(unknownField('zzz', ['class'])).toBe('unknown field "zzz"')
  })
})
