import { describe, expect, it } from 'vitest'
import { MAX_PER_SKILL, UsageLog } from './usage-log.js'

const HOUR = 3_600_000

describe('usage log', () => {
  it('keeps the newest requests per skill up to its cap, says what it dropped, and forgets what weighs nothing', () => {
    const log = new UsageLog()
    const dropped: string[] = []
    for (let i = 0; i < MAX_PER_SKILL + 20; i++) dropped.push(...log.add({ id: `e${i}`, skill: 'a', query: `q${i}`, at: i * HOUR }).dropped.map((e) => e.query))
    expect(log.count('a')).toBe(MAX_PER_SKILL)
    expect(dropped).toEqual(Array.from({ length: 20 }, (_, i) => `q${i}`))
    expect(log.add({ id: 'e519', skill: 'a', query: 'again', at: 0 })).toEqual({ added: false, dropped: [] })
    // The oldest twenty were dropped; one dropped id can come back as a new example.
    expect(log.add({ id: 'e0', skill: 'a', query: 'q0', at: 600 * HOUR }).added).toBe(true)
    expect(log.examples('a').map((e) => e.query)).toContain('q519')
    expect(log.prune(500 * HOUR).map((e) => e.query)).toContain('q100')
    expect(log.count('a')).toBe(21)
    log.prune(600 * HOUR + 1)
    expect(log.count('a')).toBe(0)
    expect(log.examples('a')).toEqual([])
  })
})
