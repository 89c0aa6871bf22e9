import { Link } from 'react-router'
import type { SkillClass } from '../api/types'
import { ClassChip } from '../components'
import { skillPath } from '../paths'

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
