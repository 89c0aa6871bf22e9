import { describe, expect, it } from 'vitest'
import { csvCell, exportHeader, exportLines, CSV_COLUMNS } from './audit-export.js'
import type { AuditEntry } from './audit-entry.js'

const entry: AuditEntry = {
  callId: '01M8187HJM4JHRMQYP9EGXPKFG',
  parentCallId: null,
  originCallId: null,
  skill: 'echo',
  caller: { id: '=cmd|calc', name: 'a, "quoted"\nname', kind: 'user', role: 'admin', user: null, auth: null, keyId: null },
  agent: '+agent',
  conversationId: '-1',
  edgeId: '@edge',
  edgeName: '\tTab',
  status: 'error',
  input: { message: '=1+1' },
  result: null,
  resultTruncated: false,
  error: { code: 'executor_error', message: '\rcarriage' },
  startedAt: '2026-11-29T04:00:00.000Z',
  finishedAt: '2026-11-29T04:00:00.010Z',
  durationMs: 10,
  approvalId: null,
  traceId: null,
  grantId: null,
}

describe('audit export', () => {
  it('quotes CSV cells as RFC 4180 has it and defuses cells a spreadsheet would run as formulas', () => {
    expect(csvCell('plain')).toBe('plain')
    expect(csvCell(null)).toBe('')
    expect(csvCell(12.5)).toBe('12.5')
    expect(csvCell('a,b')).toBe('"a,b"')
    expect(csvCell('say "hi"')).toBe('"say ""hi"""')
    expect(csvCell('two\nlines')).toBe('"two\nlines"')
    for (const lead of ['=', '+', '-', '@', '\t']) expect(csvCell(`${lead}SUM(A1)`)).toBe(`'${lead}SUM(A1)`)
    expect(csvCell('\rx')).toBe(`"'\rx"`)
    expect(csvCell('=HYPERLINK("http://x","y")')).toBe(`"'=HYPERLINK(""http://x"",""y"")"`)
    // Only the first character counts.
    expect(csvCell('a=b')).toBe('a=b')
  })

  it('writes a header and one record per call with fixed columns; JSON lines are the entries', () => {
    const csv = exportHeader('csv') + exportLines('csv', [entry])
    const [header, ...rest] = csv.split('\r\n')
    expect(header).toBe(CSV_COLUMNS.map(([name]) => name).join(','))
    expect(rest.at(-1)).toBe('')
    const record = rest.slice(0, -1).join('\r\n')
    expect(record).toBe(
      [
        '01M8187HJM4JHRMQYP9EGXPKFG',
        '2026-11-29T04:00:00.000Z',
        '2026-11-29T04:00:00.010Z',
        '10',
        'error',
        'echo',
        "'=cmd|calc",
        '"a, ""quoted""\nname"',
        'user',
        'admin',
        "'+agent",
        "'-1",
        "'@edge",
        "'\tTab",
        'executor_error',
        `"'\rcarriage"`,
        '',
        '',
        '',
        '',
        '"{""message"":""=1+1""}"',
        '',
      ].join(','),
    )
    expect(exportHeader('jsonl')).toBe('')
    expect(exportLines('jsonl', [entry, entry])).toBe(`${JSON.stringify(entry)}\n${JSON.stringify(entry)}\n`)
  })
})
