import { useState } from 'react'
import { Link, useParams } from 'react-router'
import { api, unwrap } from '../api/client'
import { useApi } from '../api/use-api'
import { isExecutable } from '../api/types'
import { Chip, ClassChip, ConnectionChip, Duration, ErrorNote, JsonView, StatusChip, Time } from '../components'
import { useSession } from '../session/session'
import { InvokeForm } from './invoke-form'
import { CatalogEdit } from './catalog-edit'
import { SkillSharing } from './skill-sharing'
import { SkillRisks } from './skill-risks'
import { PolicyInEffect } from './policy-in-effect'
import { callPath } from '../paths'
import { HealthCharts } from './health-charts'

/** One skill: what it does, its schemas, invoke it, and (by role) catalog edits and recent calls. */
export function SkillPage() {
  const key = useParams().key!
  // Another skill is another page: no form state carries over.
  return <Skill key={key} skillKey={key} />
}

function Skill({ skillKey: key }: { skillKey: string }) {
  const { abilities: can } = useSession()
  const skill = useApi(() => unwrap(api.GET('/api/skills/{key}', { params: { path: { key } } })), [key])
  // Each call made from the form loads the recent calls again.
  const [invoked, setInvoked] = useState(0)
  if (skill.error) return <ErrorNote error={skill.error} />
  if (!skill.data) return <p>Loading…</p>
  const s = skill.data
  return (
    <section>
      <p>
        <Link to="/skills">← Skills</Link>
      </p>
      <h1>
        {s.title} <code>{s.key}</code>
      </h1>
      <p className="chips">
        <ClassChip value={s.class} />
        <Chip tone={s.scope === 'host' ? 'info' : 'plain'}>{s.scope}</Chip>
        <Chip>{s.source}</Chip>
        {s.available ? <Chip tone="good">available</Chip> : <Chip tone="bad">unavailable: {s.unavailableReason}</Chip>}
        <ConnectionChip skill={s} />
        {s.agents.length > 0 && <span className="muted">bound to {s.agents.join(', ')}</span>}
      </p>
      <p className="description">{s.description}</p>
      {isExecutable(s) ? (
        <>
          <div className="columns">
            <div>
              <h2>Invoke</h2>
              <InvokeForm skill={s} onInvoked={() => setInvoked((n) => n + 1)} />
            </div>
            <div>
              <h2>Input schema</h2>
              <JsonView value={s.inputSchema} label="Input schema" />
              {s.outputSchema && (
                <>
                  <h2>Output schema</h2>
                  <JsonView value={s.outputSchema} label="Output schema" />
                </>
              )}
            </div>
          </div>
          <PolicyInEffect skill={s} />
        </>
      ) : (
        <>
          <p className="muted">
            An instruction skill{s.template ? ' (SKILL.md.template, rendered for each caller)' : ''}: agents read it with activate_skill; there is nothing to
            invoke.
          </p>
          <Diagnostics items={s.diagnostics} />
        </>
      )}
      <SkillRisks risks={s.risks ?? []} />
      <SkillSharing key={JSON.stringify(s.sharing)} skill={s} admin={can.manageSkills} onSaved={skill.reload} />
      {/* A fresh form after each save: it starts from what the server now holds. */}
      {can.manageSkills && (
        <CatalogEdit key={JSON.stringify([s.title, s.description, s.tags, s.class, s.enabled, s.overrides])} skill={s} onSaved={skill.reload} />
      )}
      {can.readAudit && isExecutable(s) && <HealthCharts dim="skill" value={s.key} />}
      {can.readAudit && isExecutable(s) && <RecentCalls skillKey={s.key} refresh={invoked} />}
    </section>
  )
}

/** What loading an instruction skill's SKILL.md found. */
function Diagnostics({ items }: { items: Array<{ severity: string; message: string; line?: number }> }) {
  if (items.length === 0) return null
  return (
    <>
      <h2 id="skill-diagnostics">Findings</h2>
      <ul aria-labelledby="skill-diagnostics">
        {items.map((d, i) => (
          <li key={i}>
            <Chip tone={d.severity === 'error' ? 'bad' : 'warn'}>{d.severity}</Chip> {d.line !== undefined && <span className="muted">line {d.line}: </span>}
            {d.message}
          </li>
        ))}
      </ul>
    </>
  )
}

function RecentCalls({ skillKey, refresh }: { skillKey: string; refresh: number }) {
  const calls = useApi(() => unwrap(api.GET('/api/audit', { params: { query: { skill: skillKey, limit: 10 } } })), [skillKey, refresh])
  return (
    <>
      <h2 id="recent-calls">Recent calls</h2>
      <ErrorNote error={calls.error} />
      <table className="plain" aria-labelledby="recent-calls">
        <thead>
          <tr>
            <th>Started</th>
            <th>Status</th>
            <th>Caller</th>
            <th>Duration</th>
          </tr>
        </thead>
        <tbody>
          {(calls.data?.items ?? []).map((row) => (
            <tr key={row.callId}>
              <td>
                <Link to={callPath(row.callId)}>
                  <Time at={row.startedAt} />
                </Link>
              </td>
              <td>
                <StatusChip value={row.status} />
              </td>
              <td>{row.caller.name}</td>
              <td>
                <Duration ms={row.durationMs} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {calls.data?.items.length === 0 && <p className="muted">No calls yet.</p>}
    </>
  )
}
