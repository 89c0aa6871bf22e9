import { useState } from 'react'
import { useSearchParams } from 'react-router'
import { api, unwrap } from '../api/client'
import { useApi } from '../api/use-api'
import { ErrorNote } from '../components'
import { PolicyMatrix } from './policy-matrix'
import { PolicyOverrides } from './policy-overrides'

const CLASSES = ['safe', 'mutating', 'dangerous'] as const
const isClass = (value: string): value is (typeof CLASSES)[number] => (CLASSES as readonly string[]).includes(value)

// Skills per page of the matrix: a page of cells stays light to render and to decide on the server.
const PAGE = 100

/**
 * Skills × subjects with the decision in effect, as the server's policy engine gives it (never
 * worked out here), filtered and paged by skill; admins set and clear overrides in place.
 */
export function PoliciesPage() {
  const [params, setParams] = useSearchParams()
  const q = params.get('q') ?? ''
  const klass = params.get('class') ?? ''
  const edge = params.get('edge') ?? ''
  const [text, setText] = useState(q)
  // The cursors of the pages before this one, to go back; the last is this page's.
  const [cursors, setCursors] = useState<string[]>([])
  const cursor = cursors.at(-1)
  const matrix = useApi(
    () =>
      unwrap(
        api.GET('/api/policies/effective', {
          params: {
            query: { limit: PAGE, ...(q && { q }), ...(isClass(klass) && { class: klass }), ...(edge && { edge }), ...(cursor && { cursor }) },
          },
        }),
      ),
    [q, klass, edge, cursor ?? ''],
  )
  const policies = useApi(() => unwrap(api.GET('/api/policies')).then((b) => b.policies), [])
  const edges = useApi(() => unwrap(api.GET('/api/edges')).then((b) => b.edges.filter((e) => !e.revokedAt)), [])
  const set = (name: string, value: string) => {
    const next = new URLSearchParams(params)
    if (value) next.set(name, value)
    else next.delete(name)
    setCursors([])
    setParams(next, { replace: true })
  }
  const changed = () => {
    matrix.reload()
    policies.reload()
  }
  return (
    <section>
      <h1>Policies</h1>
      <p className="muted legend">
        Each cell is the decision the server&apos;s policy engine makes for that skill and subject, and where it came from. Columns: people by role (no user
        override applies), any agent (role overrides for agents), each agent through its own key, and each user an override names. Global and edge overrides
        show up inside the cells; pick an edge to decide host skills as run on it. Select a cell to set or clear its override.
      </p>
      <form
        className="toolbar"
        role="search"
        aria-label="Filter skills"
        onSubmit={(e) => {
          e.preventDefault()
          set('q', text.trim())
        }}
      >
        <label>
          Skill key contains
          <input type="search" value={text} onChange={(e) => setText(e.target.value)} />
        </label>
        <button type="submit">Filter</button>
        <label>
          Class
          <select value={klass} onChange={(e) => set('class', e.target.value)}>
            <option value="">any</option>
            {CLASSES.map((c) => (
              <option key={c}>{c}</option>
            ))}
          </select>
        </label>
        <label>
          Host skills run on edge
          <select value={edge} onChange={(e) => set('edge', e.target.value)}>
            <option value="">no edge chosen</option>
            {(edges.data ?? []).map((e) => (
              <option key={e.id} value={e.name}>
                {e.name}
              </option>
            ))}
          </select>
        </label>
      </form>
      <ErrorNote error={matrix.error ?? policies.error} />
      {matrix.data && <PolicyMatrix matrix={matrix.data} policies={policies.data ?? []} onChanged={changed} />}
      {matrix.data?.skills.length === 0 && <p className="muted">No skill matches.</p>}
      <nav className="actions pager" aria-label="Matrix pages">
        <button type="button" disabled={cursors.length === 0} onClick={() => setCursors((c) => c.slice(0, -1))}>
          Previous skills
        </button>
        <button type="button" disabled={!matrix.data?.nextCursor} onClick={() => setCursors((c) => [...c, matrix.data!.nextCursor!])}>
          Next skills
        </button>
        <span className="muted" aria-live="polite">
          {matrix.loading ? 'Loading…' : matrix.data && `${matrix.data.skills.length} skill${matrix.data.skills.length === 1 ? '' : 's'} on this page`}
        </span>
      </nav>
      <PolicyOverrides policies={policies.data ?? []} subjects={matrix.data?.subjects ?? []} onChanged={changed} />
    </section>
  )
}
