import { Link } from 'react-router'
import { api, unwrap } from '../api/client'
import { useApi } from '../api/use-api'
import type { ExecutableDetail } from '../api/types'
import { DecisionChip, ErrorNote } from '../components'
import { useSession } from '../session/session'

/** What the policy decides for this skill: for the signed-in key, and for admins for each agent bound to it. */
export function PolicyInEffect({ skill }: { skill: ExecutableDetail }) {
  const { abilities: can } = useSession()
  const subjects = ['self', ...(can.managePolicies ? skill.agents.map((agent) => `agent:${agent}`) : [])].join(',')
  const effective = useApi(
    () => unwrap(api.GET('/api/policies/effective', { params: { query: { skill: skill.key, subject: subjects } } })),
    [skill.key, subjects],
  )
  const row = effective.data?.skills[0]
  // A skill the matrix has no row for (no policy applies to it): nothing to show.
  if (effective.data && !row) return null
  return (
    <>
      <h2 id="policy-in-effect">Policy in effect</h2>
      <ErrorNote error={effective.error} />
      {row && (
        <table className="plain" aria-labelledby="policy-in-effect">
          <thead>
            <tr>
              <th>For</th>
              <th>Decision</th>
              <th>Why</th>
              <th>Approval</th>
            </tr>
          </thead>
          <tbody>
            {row.cells.map((cell, i) => (
              <tr key={cell.subject} data-subject={cell.subject}>
                <td>{effective.data!.subjects[i]!.label}</td>
                <td>
                  <DecisionChip value={cell.decision} />
                </td>
                <td>
                  {cell.reason}
                  {cell.refusal && <span className="error"> — can&apos;t call it: {cell.refusal}</span>}
                </td>
                <td>
                  {cell.decision === 'ASK'
                    ? `${cell.requirement.approvals} ${cell.requirement.approverRole}${cell.requirement.approvals === 1 ? '' : 's'}${cell.requirement.sop ? ' citing a signed procedure' : ''}`
                    : '—'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {can.managePolicies && (
        <p>
          <Link to={`/policies?q=${encodeURIComponent(skill.key)}`}>Edit this skill&apos;s overrides in Policies</Link>
        </p>
      )}
    </>
  )
}
