import { useEffect, useRef, useState } from 'react'
import { Link, useSearchParams } from 'react-router'
import { useVirtualizer } from '@tanstack/react-virtual'
import { api, unwrap, type ApiError } from '../api/client'
import { allSkills, type SkillQuery } from '../api/all-skills'
import { toApiError } from '../api/use-api'
import type { SkillSummary } from '../api/types'
import { Chip, ClassChip, ConnectionChip, ErrorNote } from '../components'
import { skillPath } from '../paths'

const FILTERS = {
  class: ['safe', 'mutating', 'dangerous'],
  source: ['code', 'agent-skill', 'pack', 'mcp', 'http', 'edge'],
  scope: ['manager', 'host'],
  available: ['true', 'false'],
  connection: ['ready', 'needs_auth', 'needs_input'],
} as const
type Filter = keyof typeof FILTERS

const ROW_HEIGHT = 44

/**
 * Every skill the key may see: the filters applied by the server, page after page into a virtualised
 * table (rows show as pages arrive); a search ranks through the discovery index, then asks for those skills.
 */
export function SkillsPage() {
  const [params, setParams] = useSearchParams()
  const q = params.get('q') ?? ''
  const [text, setText] = useState(q)
  const skills = useSkills(params)
  const set = (name: string, value: string) => {
    const next = new URLSearchParams(params)
    if (value) next.set(name, value)
    else next.delete(name)
    setParams(next, { replace: true })
  }
  const rows = skills.data ?? []
  const scroller = useRef<HTMLDivElement>(null)
  const virtual = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 12 })
  return (
    <section>
      <h1>Skills</h1>
      <form
        className="toolbar"
        role="search"
        onSubmit={(e) => {
          e.preventDefault()
          set('q', text.trim())
        }}
      >
        <label>
          Search
          <input type="search" value={text} placeholder="what should the skill do?" onChange={(e) => setText(e.target.value)} />
        </label>
        <button type="submit">Search</button>
        {(Object.keys(FILTERS) as Filter[]).map((name) => (
          <label key={name}>
            {name}
            <select value={params.get(name) ?? ''} onChange={(e) => set(name, e.target.value)}>
              <option value="">any</option>
              {FILTERS[name].map((v) => (
                <option key={v}>{v}</option>
              ))}
            </select>
          </label>
        ))}
      </form>
      <ErrorNote error={skills.error} />
      <p className="muted" aria-live="polite">
        {skills.loading
          ? `Loading… ${rows.length} skill${rows.length === 1 ? '' : 's'} so far`
          : `${rows.length} skill${rows.length === 1 ? '' : 's'}${q ? ` for “${q}”, best first` : ''}`}
      </p>
      <div className="grid-table skills-table" role="table" aria-label="Skills" aria-rowcount={rows.length + 1}>
        <div className="grid-row head" role="row">
          <span role="columnheader">Skill</span>
          <span role="columnheader">Class</span>
          <span role="columnheader">Scope</span>
          <span role="columnheader">Source</span>
          <span role="columnheader">Availability</span>
          <span role="columnheader">Connection</span>
          <span role="columnheader">Bound to</span>
        </div>
        <div ref={scroller} className="grid-body" style={{ height: Math.min(rows.length * ROW_HEIGHT, 640) }}>
          <div style={{ height: virtual.getTotalSize(), position: 'relative' }}>
            {virtual.getVirtualItems().map((item) => {
              const skill = rows[item.index]!
              return (
                <div
                  key={skill.key}
                  className="grid-row"
                  role="row"
                  aria-rowindex={item.index + 2}
                  style={{ position: 'absolute', top: 0, left: 0, right: 0, height: ROW_HEIGHT, transform: `translateY(${item.start}px)` }}
                >
                  <span role="cell" className="skill-name">
                    <Link to={skillPath(skill.key)}>{skill.key}</Link>
                    <span className="muted">{skill.title}</span>
                  </span>
                  <span role="cell">
                    <ClassChip value={skill.class} />
                  </span>
                  <span role="cell">
                    <Chip tone={skill.scope === 'host' ? 'info' : 'plain'}>{skill.scope}</Chip>
                  </span>
                  <span role="cell">
                    <Chip>{skill.source}</Chip>
                  </span>
                  <span role="cell">
                    {skill.available ? (
                      <Chip tone="good">available</Chip>
                    ) : (
                      <Chip tone="bad" title={skill.unavailableReason ?? undefined}>
                        unavailable
                      </Chip>
                    )}
                  </span>
                  <span role="cell">
                    <ConnectionChip skill={skill} />
                  </span>
                  <span role="cell" className="muted">
                    {skill.agents.join(', ') || '—'}
                  </span>
                </div>
              )
            })}
          </div>
        </div>
      </div>
    </section>
  )
}

/** The listing the page's query asks for, as it loads: every page of it, or the search's results. */
function useSkills(params: URLSearchParams): { data: SkillSummary[] | undefined; error: ApiError | undefined; loading: boolean } {
  const [state, setState] = useState<{ key: string; data?: SkillSummary[]; error?: ApiError; done: boolean }>({ key: '', done: false })
  const key = params.toString()
  useEffect(() => {
    let current = true
    const q = params.get('q') ?? ''
    const filters: SkillQuery = Object.fromEntries(Object.keys(FILTERS).flatMap((name) => (params.get(name) ? [[name, params.get(name)!]] : [])))
    const show = (data: SkillSummary[], done: boolean) => current && setState({ key, data, done })
    const load = async () => {
      if (!q) return allSkills(filters, (sofar) => show(sofar, false))
      // Ranked by the discovery index, then narrowed by the filters.
      const found = await unwrap(api.GET('/api/skills/search', { params: { query: { q, limit: 50 } } }))
      if (found.results.length === 0) return []
      const keys = found.results.map((r) => r.key)
      const listed = await allSkills({ ...filters, key: keys.join(',') })
      const byKey = new Map(listed.map((s) => [s.key, s]))
      return keys.flatMap((k) => byKey.get(k) ?? [])
    }
    load().then(
      (data) => show(data, true),
      (error: unknown) => current && setState((s) => ({ key, data: s.data, error: toApiError(error), done: true })),
    )
    return () => {
      current = false
    }
    // `params` is what `key` stands for.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key])
  return { data: state.data, error: state.key === key ? state.error : undefined, loading: state.key !== key || !state.done }
}
