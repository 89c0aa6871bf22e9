import { describe, expect, it } from 'vitest'
import { MAX_PER_SKILL, UsageLog } from './usage-log.js'

const HOUR = 3_600_000

describe('usage log', () => {
  it('keeps the newest requests per skill up to its cap, buckets them by age, and forgets what weighs nothing', () => {
    const log = new UsageLog()
    for (let i = 0; i < MAX_PER_SKILL + 20; i++) log.add({ id: `e${i}`, skill: 'a', query: `q${i}`, at: i * HOUR })
    expect(log.count('a')).toBe(MAX_PER_SKILL)
    expect(log.add({ id: 'e519', skill: 'a', query: 'again', at: 0 })).toBe(false)
    // The oldest twenty were dropped; one dropped id can come back as a new example.
    expect(log.add({ id: 'e0', skill: 'a', query: 'q0', at: 600 * HOUR })).toBe(true)
    const now = 600 * HOUR
    const fields = log.fields('a', now, 100 * HOUR)
    expect(fields.usage0.split('\n')).toContain('q519')
    expect(fields.usage3.split('\n')).toContain('q100')
    expect(`${fields.usage0}\n${fields.usage1}\n${fields.usage2}\n${fields.usage3}`).not.toContain('q19\n')
    log.prune(500 * HOUR)
    expect(log.count('a')).toBe(21)
    log.prune(now + 1)
    expect(log.count('a')).toBe(0)
    expect([...log.skills()]).toEqual([])
  })
})
