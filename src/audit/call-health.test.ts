import { describe, expect, it } from 'vitest'
import { planWindow, tileWindow } from './call-health.js'

const at = Date.parse('2026-03-10T14:37:25.000Z')

describe('a health window', () => {
  it('is whole buckets ending with the current one, read as one range per grain', () => {
    expect(planWindow('1h', at)).toEqual({
      from: '2026-03-10T13:38:00.000Z',
      to: '2026-03-10T14:38:00.000Z',
      // No whole hour inside: sixty minute buckets, one range.
      tiles: [{ grain: 'm', from: '2026-03-10T13:38', to: '2026-03-10T14:38' }],
    })
    expect(planWindow('24h', at).tiles).toEqual([{ grain: 'h', from: '2026-03-09T15', to: '2026-03-10T15' }])
    expect(planWindow('30d', at)).toMatchObject({
      from: '2026-02-09T00:00:00.000Z',
      to: '2026-03-11T00:00:00.000Z',
      tiles: [{ grain: 'd', from: '2026-02-09', to: '2026-03-11' }],
    })
    // Callers and edges have no minutes: their hour is the current one, whole.
    expect(planWindow('1h', at, 'caller')).toEqual({
      from: '2026-03-10T14:00:00.000Z',
      to: '2026-03-10T15:00:00.000Z',
      tiles: [{ grain: 'h', from: '2026-03-10T14', to: '2026-03-10T15' }],
    })
  })

  it('tiles any range with days in the middle, hours beside them and minutes at the edges', () => {
    expect(tileWindow(Date.parse('2026-03-08T22:59:00Z'), Date.parse('2026-03-10T01:02:00Z'))).toEqual([
      { grain: 'd', from: '2026-03-09', to: '2026-03-10' },
      { grain: 'h', from: '2026-03-08T23', to: '2026-03-09T00' },
      { grain: 'm', from: '2026-03-08T22:59', to: '2026-03-08T23:00' },
      { grain: 'h', from: '2026-03-10T00', to: '2026-03-10T01' },
      { grain: 'm', from: '2026-03-10T01:00', to: '2026-03-10T01:02' },
    ])
  })
})
