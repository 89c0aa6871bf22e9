import { Link } from 'react-router'
import { api, unwrap } from '../api/client'
import { useApi } from '../api/use-api'
import type { SkillClass, SkillSummary } from '../api/types'
import { ClassChip } from '../components'
import { skillPath } from '../paths'

/** The class of each skill the key may see: bound skills it can't see show without one. */
export function useSkillClasses(): Map<string, SkillClass> {
  const skills = useApi(() => unwrap<{ skills: SkillSummary[] }>(api.GET('/api/skills')), [])
  return new Map((skills.data?.skills ?? []).map((s) => [s.key, s.class]))
}

/** An agent's bound skills: each a link to its page, with its class. */
export function BoundSkills({ skills, classes, label }: { skills: string[]; classes: Map<string, SkillClass>; label: string }) {
  if (skills.length === 0) return <span className="muted">none</span>
  return (
    <ul className="bound" aria-label={label}>
      {skills.map((key) => (
        <li key={key}>
          <Link to={skillPath(key)}>{key}</Link> {classes.has(key) && <ClassChip value={classes.get(key)!} />}
        </li>
      ))}
    </ul>
  )
}

export function ModelName({ model }: { model: { provider: string; model: string } | null }) {
  if (!model) return <span className="muted">no model</span>
  return (
    <code title={`provider ${model.provider}`}>
      {model.provider}/{model.model}
    </code>
  )
}
