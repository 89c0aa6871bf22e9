import type { RiskFinding } from '../api/types'
import { Chip } from '../components'

const TONE = { high: 'bad', warning: 'warn', info: 'plain' } as const

/** What the skill's files would do that deserves a look, as found when it was installed or uploaded. */
export function SkillRisks({ risks }: { risks: RiskFinding[] }) {
  if (risks.length === 0) return null
  return (
    <>
      <h2 id="risks">Risk findings</h2>
      <ul className="risks" aria-labelledby="risks">
        {risks.map((r, i) => (
          <li key={i}>
            <Chip tone={TONE[r.level]}>{r.level}</Chip> <code>{r.file + (r.line ? `:${r.line}` : '')}</code> {r.message}{' '}
            <span className="muted">({r.rule})</span>
          </li>
        ))}
      </ul>
    </>
  )
}
