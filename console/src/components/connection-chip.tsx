import type { SkillSummary } from '../api/types'
import { Chip } from './chips'

/** Whether the secrets and settings a skill needs are set for the viewer, and which are missing (on hover). */
export function ConnectionChip({ skill }: { skill: SkillSummary }) {
  const state = skill.connection?.state ?? 'ready'
  if (state === 'ready') return <Chip tone="good">ready</Chip>
  const missing = [...(skill.connection?.missing?.secrets ?? []), ...(skill.connection?.missing?.settings ?? [])]
  return (
    <Chip tone="warn" title={missing.length ? `missing: ${missing.join(', ')}` : undefined}>
      {state.replace('_', ' ')}
    </Chip>
  )
}
