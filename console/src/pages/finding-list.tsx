import type { Finding } from '../api/types'
import { Chip } from '../components'

/** What loading a folder found wrong, file and line first, errors before warnings. */
export function FindingList({ findings, label }: { findings: Finding[]; label: string }) {
  if (findings.length === 0) return <p className="muted">No findings.</p>
  const sorted = [...findings].sort((a, b) => (a.severity === b.severity ? 0 : a.severity === 'error' ? -1 : 1))
  return (
    <ul className="findings" aria-label={label}>
      {sorted.map((f, i) => (
        <li key={i}>
          <Chip tone={f.severity === 'error' ? 'bad' : 'warn'}>{f.severity}</Chip>{' '}
          <code>
            {f.file}:{f.line}
          </code>{' '}
          {f.message}
        </li>
      ))}
    </ul>
  )
}
