import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ulid } from 'ulid'
import { admin, approvalIdOf, operator } from '../../src/test-support/fixtures.js'
import { KEY_KINDS, helperCaller, startTarget, type KeyKind, type Target } from './harness.js'
import { ABILITY_NAMES, abilitiesOf, can, type Ability } from '../../src/abilities/index.js'
import { createHttpApp } from '../../src/surfaces/http/index.js'

type Request = { path: string; body?: string }
interface Entry {
  /**
   * Who may use the route: the ability it needs, read from the one table (src/abilities/abilities.ts),
   * or the keys named where no ability gates it (open routes, and rules about one object). Everyone
   * else gets 401 (no or bad key), 403 or 404.
   */
  allow: Ability | readonly KeyKind[]
  /**
   * The abilities the route declares with requireAbility, where they are not just `allow`: a rule
   * about one object decided in the handler (none, or a lower gate before it), or a gate in layers.
   */
  gate?: readonly Ability[]
  /** A fresh, well-formed request (state it needs is made anew for every key). */
  request(t: Target): Promise<Request> | Request
}

const KEYS = ['viewer', 'agent', 'stranger', 'operator', 'admin'] as const
const EVERY_KEY: readonly KeyKind[] = KEYS
/** What each key is to the table: a person's role, or an agent key (the stranger's is for another agent). */
const HOLDER = {
  viewer: { kind: 'user', role: 'viewer' },
  operator: { kind: 'user', role: 'operator' },
  admin: { kind: 'user', role: 'admin' },
  agent: { kind: 'agent' },
  stranger: { kind: 'agent' },
} as const
// The routes here name the helper agent, so the stranger's key (another agent's) is refused whatever it holds.
const holders = (ability: Ability): KeyKind[] => KEYS.filter((kind) => kind !== 'stranger' && can(HOLDER[kind], ability))

const pendingRequest = async (t: Target) => approvalIdOf(await t.plane.invoke('write_thing', { value: ulid() }, { caller: helperCaller }))

/**
 * Every route of the OpenAPI document (plus the ones it does not list) and who may use it. A route
 * added without an entry here fails the test: decide who may use it, then add it.
 */
const MATRIX: Record<string, Entry> = {
  'GET /api/health': { allow: ['none', 'garbage', ...EVERY_KEY], request: () => ({ path: '/api/health' }) },
  'GET /api/health/live': { allow: ['none', 'garbage', ...EVERY_KEY], request: () => ({ path: '/api/health/live' }) },
  'GET /api/health/ready': { allow: ['none', 'garbage', ...EVERY_KEY], request: () => ({ path: '/api/health/ready' }) },
  'GET /metrics': { allow: 'readMetrics', request: () => ({ path: '/metrics' }) },
  'GET /openapi.json': { allow: ['none', ...EVERY_KEY], request: () => ({ path: '/openapi.json' }) },
  'POST /mcp': {
    allow: EVERY_KEY,
    request: () => ({
      path: '/mcp',
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'matrix', version: '1' } },
      }),
    }),
  },
  'GET /auth/config': { allow: ['none', 'garbage', ...EVERY_KEY], request: () => ({ path: '/auth/config' }) },
  'GET /api/me': { allow: EVERY_KEY, request: () => ({ path: '/api/me' }) },
  'GET /api/skills': { allow: EVERY_KEY, request: () => ({ path: '/api/skills' }) },
  'GET /api/skills/search': { allow: EVERY_KEY, request: () => ({ path: '/api/skills/search?q=echo' }) },
  'GET /api/skills/{key}': { allow: ['viewer', 'agent', 'operator', 'admin'], request: () => ({ path: '/api/skills/echo' }) },
  'PATCH /api/skills/{key}': { allow: 'manageSkills', request: () => ({ path: '/api/skills/echo', body: JSON.stringify({ tags: ['matrix'] }) }) },
  'PUT /api/skills/{key}/sharing': {
    allow: 'manageSkills',
    request: () => ({ path: '/api/skills/echo/sharing', body: JSON.stringify({ visibility: 'all' }) }),
  },
  // Past the gate each answers 400 or 404 here: no network source or bundle is needed to tell roles apart.
  'POST /api/skills/install': {
    allow: 'manageSkills',
    request: () => ({ path: '/api/skills/install', body: JSON.stringify({ source: '/etc', dryRun: true }) }),
  },
  'POST /api/skills/upload': { allow: 'manageSkills', request: () => ({ path: '/api/skills/upload', body: '' }) },
  'POST /api/skills/{key}/rollback': { allow: 'manageSkills', request: () => ({ path: '/api/skills/echo/rollback', body: '' }) },
  'POST /api/skills/{key}/invoke': {
    allow: ['viewer', 'agent', 'operator', 'admin'],
    request: () => ({ path: '/api/skills/echo/invoke', body: JSON.stringify({ input: { message: 'hi' } }) }),
  },
  'GET /api/audit': { allow: 'readAudit', request: () => ({ path: '/api/audit' }) },
  'GET /api/audit/{callId}': {
    allow: 'readAudit',
    request: async (t) => ({ path: `/api/audit/${(await t.plane.invoke('echo', { message: 'x' }, { caller: admin })).callId}` }),
  },
  'GET /api/audit/{callId}/tree': {
    allow: 'readAudit',
    request: async (t) => ({ path: `/api/audit/${(await t.plane.invoke('echo', { message: 'x' }, { caller: admin })).callId}/tree` }),
  },
  'GET /api/audit/export': { allow: 'readAudit', request: () => ({ path: '/api/audit/export?format=csv&q=echo' }) },
  'GET /api/conversations/{id}': {
    allow: 'readAudit',
    request: async (t) => {
      const conversationId = ulid()
      await t.plane.invoke('echo', { message: 'x' }, { caller: admin, conversationId })
      return { path: `/api/conversations/${conversationId}` }
    },
  },
  'GET /api/audit/histogram': { allow: 'readAudit', request: () => ({ path: '/api/audit/histogram?skill=echo' }) },
  'GET /api/audit/events': { allow: 'readAudit', request: () => ({ path: '/api/audit/events' }) },
  'GET /api/stats': { allow: 'readAudit', request: () => ({ path: '/api/stats?dim=skill&window=1h' }) },
  'GET /api/stats/{dim}/{value}/series': { allow: 'readAudit', request: () => ({ path: '/api/stats/skill/echo/series?window=24h' }) },
  'POST /api/audit/sweep': { gate: ['readAudit', 'sweepAudit'], allow: 'sweepAudit', request: () => ({ path: '/api/audit/sweep', body: '' }) },
  'GET /api/agents': { allow: EVERY_KEY, request: () => ({ path: '/api/agents' }) },
  'GET /api/agents/{id}/runs': { gate: [], allow: 'runAgents', request: () => ({ path: '/api/agents/helper/runs' }) },
  'POST /api/agents/{id}/runs': {
    gate: [],
    allow: 'runAgents',
    request: () => ({ path: '/api/agents/helper/runs', body: JSON.stringify({ prompt: 'hello' }) }),
  },
  'POST /api/agents/{id}/test-runs': {
    gate: [],
    allow: 'runAgents',
    request: () => ({ path: '/api/agents/helper/test-runs', body: JSON.stringify({ input: 'hello' }) }),
  },
  'GET /api/runs/{id}': { gate: [], allow: 'runAgents', request: () => ({ path: `/api/runs/${ulid()}` }) },
  'GET /api/runs/{id}/tree': { gate: [], allow: 'runAgents', request: () => ({ path: `/api/runs/${ulid()}/tree` }) },
  'GET /api/runs/{id}/events': { gate: [], allow: 'runAgents', request: () => ({ path: `/api/runs/${ulid()}/events` }) },
  'GET /api/runs/{id}/steps/{index}/request': { gate: [], allow: 'runAgents', request: () => ({ path: `/api/runs/${ulid()}/steps/0/request` }) },
  // The person the run acts for (who started it: operator and up) or an approver of the role deciding the call's approval would
  // need (admin for an admin's run or a dangerous tool); never an agent key (src/agents/run-client.test.ts).
  'POST /api/runs/{id}/inputs/{inputId}': {
    gate: [],
    allow: ['operator', 'admin'],
    request: () => ({ path: `/api/runs/${ulid()}/inputs/${ulid()}`, body: JSON.stringify({ action: 'decline' }) }),
  },
  'GET /api/agents/{id}/skills-prompt': { allow: ['viewer', 'agent', 'operator', 'admin'], request: () => ({ path: '/api/agents/helper/skills-prompt' }) },
  // Its own agent key, and whoever exports any agent's skills.
  'GET /api/agents/{id}/skills-export': { allow: ['agent', ...holders('exportAgents')], request: () => ({ path: '/api/agents/helper/skills-export' }) },
  'GET /api/sources': { allow: 'manageSources', request: () => ({ path: '/api/sources' }) },
  'POST /api/sources/reload': { allow: 'manageSources', request: () => ({ path: '/api/sources/reload', body: '' }) },
  'GET /api/approvals': { allow: EVERY_KEY, request: () => ({ path: '/api/approvals' }) },
  'GET /api/events': { allow: EVERY_KEY, request: () => ({ path: '/api/events' }) },
  // The agent asked, so it may read its own request; a stranger and a viewer may not.
  'GET /api/approvals/{id}': { allow: ['agent', 'operator', 'admin'], request: async (t) => ({ path: `/api/approvals/${await pendingRequest(t)}` }) },
  // A viewer and a stranger can't see the request (404); the agent that asked may read it but not check procedures (403).
  'GET /api/approvals/{id}/sop-check': {
    allow: 'viewApprovals',
    request: async (t) => ({ path: `/api/approvals/${await pendingRequest(t)}/sop-check?sopId=none` }),
  },
  'POST /api/approvals/{id}/approve': {
    gate: [],
    allow: 'decideApprovals',
    request: async (t) => ({ path: `/api/approvals/${await pendingRequest(t)}/approve`, body: '{}' }),
  },
  'POST /api/approvals/{id}/reject': {
    gate: [],
    allow: 'decideApprovals',
    request: async (t) => ({ path: `/api/approvals/${await pendingRequest(t)}/reject`, body: '{}' }),
  },
  'GET /api/approvals/grants': { allow: 'manageGrants', request: () => ({ path: '/api/approvals/grants' }) },
  // Granted by another operator: the operator key is not its granter, so only one who manages policies may revoke it.
  'DELETE /api/approvals/grants/{id}': {
    gate: ['manageGrants'],
    allow: 'managePolicies',
    request: async (t) => {
      const asked = await t.plane.invoke('write_thing', { value: ulid() }, { caller: helperCaller, conversationId: ulid() })
      const decided = await t.plane.approvals.decide({ id: approvalIdOf(asked), caller: operator, decision: 'approve', scope: 'conversation' })
      if (!decided.ok || decided.granted?.scope !== 'conversation') throw new Error(decided.ok ? 'no grant' : decided.message)
      return { path: `/api/approvals/grants/${decided.granted.grant.id}` }
    },
  },
  'GET /api/policies': { allow: 'managePolicies', request: () => ({ path: '/api/policies' }) },
  // Every key may ask what is in effect for itself; asking about others is the admins' (tested beside the route).
  'GET /api/policies/effective': { allow: EVERY_KEY, request: () => ({ path: '/api/policies/effective?skill=echo' }) },
  'PUT /api/policies': {
    allow: 'managePolicies',
    request: () => ({ path: '/api/policies', body: JSON.stringify({ skill: 'echo', level: 'role', subject: 'viewer', decision: 'ASK' }) }),
  },
  'DELETE /api/policies/{id}': {
    allow: 'managePolicies',
    request: async (t) => {
      const set = await t.plane.policies.set({ skill: 'counted', level: 'role', subject: 'viewer', decision: 'DENY' }, admin, t.plane.now())
      if (!set.ok) throw new Error(set.message)
      return { path: `/api/policies/${set.policy.id}` }
    },
  },
  ...Object.fromEntries(
    (['secret', 'setting'] as const).flatMap((kind) => [
      [`GET /api/${kind}s`, { allow: 'manageConnections', request: () => ({ path: `/api/${kind}s` }) }],
      [
        `PUT /api/${kind}s/{name}`,
        { allow: 'manageConnections', request: () => ({ path: `/api/${kind}s/MATRIX_${kind.toUpperCase()}`, body: JSON.stringify({ value: 'v-1234' }) }) },
      ],
      [
        `DELETE /api/${kind}s/{name}`,
        {
          allow: 'manageConnections',
          request: async (t: Target) => {
            const name = `M_${ulid()}`
            await (kind === 'secret' ? t.plane.values.secrets : t.plane.values.settings).set(name, 'v-1234')
            return { path: `/api/${kind}s/${name}` }
          },
        },
      ],
    ]),
  ),
  // People's own OAuth connections: every role, no agent key (an agent acts for nobody's account).
  'GET /api/connections': { allow: 'connectAccounts', request: () => ({ path: '/api/connections' }) },
  'POST /api/connections/{provider}/authorize': { allow: 'connectAccounts', request: () => ({ path: '/api/connections/matrix/authorize', body: '{}' }) },
  'DELETE /api/connections/{provider}': { allow: 'connectAccounts', request: () => ({ path: '/api/connections/matrix' }) },
  'GET /api/learnings': { allow: 'manageLearnings', request: () => ({ path: '/api/learnings' }) },
  ...Object.fromEntries(
    (['verify', 'disprove'] as const).map((action) => [
      `POST /api/learnings/{id}/${action}`,
      {
        allow: 'manageLearnings',
        request: async (t: Target) => {
          const { id } = await t.plane.values.learnings.record(
            { category: 'pattern', title: 'matrix', content: 'a learning' },
            { skill: null, agentId: null, callId: null, caller: admin },
          )
          return { path: `/api/learnings/${id}/${action}` }
        },
      },
    ]),
  ),
  'GET /api/edges': { allow: 'readEdges', request: () => ({ path: '/api/edges' }) },
  'POST /api/edges': { allow: 'manageEdges', request: () => ({ path: '/api/edges', body: JSON.stringify({ name: `m-${ulid().toLowerCase()}` }) }) },
  'GET /api/edges/{id}': {
    allow: 'readEdges',
    request: async (t) => {
      const enrolled = await t.plane.sources.edges.enroll({ name: `m-${ulid().toLowerCase()}` }, admin)
      if (!enrolled.ok) throw new Error(enrolled.message)
      return { path: `/api/edges/${enrolled.edge.id}` }
    },
  },
  'PUT /api/edges/{id}/secrets': {
    allow: 'manageEdges',
    request: async (t) => {
      const enrolled = await t.plane.sources.edges.enroll({ name: `m-${ulid().toLowerCase()}` }, admin)
      if (!enrolled.ok) throw new Error(enrolled.message)
      return { path: `/api/edges/${enrolled.edge.id}/secrets`, body: JSON.stringify({ secrets: ['DEPLOY_TOKEN'] }) }
    },
  },
  'POST /api/edges/{id}/rotate': {
    allow: 'manageEdges',
    request: async (t) => {
      const enrolled = await t.plane.sources.edges.enroll({ name: `m-${ulid().toLowerCase()}` }, admin)
      if (!enrolled.ok) throw new Error(enrolled.message)
      return { path: `/api/edges/${enrolled.edge.id}/rotate`, body: JSON.stringify({ expiresIn: '30d' }) }
    },
  },
  'DELETE /api/edges/{id}': {
    allow: 'manageEdges',
    request: async (t) => {
      const enrolled = await t.plane.sources.edges.enroll({ name: `m-${ulid().toLowerCase()}` }, admin)
      if (!enrolled.ok) throw new Error(enrolled.message)
      return { path: `/api/edges/${enrolled.edge.id}` }
    },
  },
  'GET /api/users': { allow: 'manageUsers', request: () => ({ path: '/api/users' }) },
  'POST /api/users': { allow: 'manageUsers', request: () => ({ path: '/api/users', body: JSON.stringify({ name: `m-${ulid()}` }) }) },
  'PATCH /api/users/{id}': {
    allow: 'manageUsers',
    request: async (t) => ({
      path: `/api/users/${(await t.plane.people.users.add({ name: `m-${ulid()}` }, admin)).id}`,
      body: JSON.stringify({ role: 'viewer' }),
    }),
  },
  'GET /api/groups': { allow: 'manageUsers', request: () => ({ path: '/api/groups' }) },
  'POST /api/groups': { allow: 'manageUsers', request: () => ({ path: '/api/groups', body: JSON.stringify({ name: `m-${ulid()}` }) }) },
  'PATCH /api/groups/{id}': {
    allow: 'manageUsers',
    request: async (t) => ({
      path: `/api/groups/${(await t.plane.people.groups.add({ name: `m-${ulid()}` }, admin)).id}`,
      body: JSON.stringify({ role: null }),
    }),
  },
  'PUT /api/groups/{id}/members/{user}': {
    allow: 'manageUsers',
    request: async (t) => ({ path: `/api/groups/${(await t.plane.people.groups.add({ name: `m-${ulid()}` }, admin)).id}/members/vera`, body: '' }),
  },
  'DELETE /api/groups/{id}/members/{user}': {
    allow: 'manageUsers',
    request: async (t) => {
      const group = await t.plane.people.groups.add({ name: `m-${ulid()}` }, admin)
      await t.plane.people.groups.addMember(group.id, 'vera', admin)
      return { path: `/api/groups/${group.id}/members/vera` }
    },
  },
  'GET /api/sops': { allow: 'readSops', request: () => ({ path: '/api/sops' }) },
  'POST /api/sops': {
    allow: 'manageSops',
    request: (t) => {
      const sop = t.signer.sop({ id: `m${ulid().toLowerCase()}`, skills: ['wipe_things'] })
      return { path: '/api/sops', body: JSON.stringify(sop) }
    },
  },
  'POST /api/sops/{id}/revoke': {
    allow: 'manageSops',
    request: async (t) => {
      const sop = t.signer.sop({ id: `m${ulid().toLowerCase()}`, skills: ['wipe_things'] })
      const registered = await t.plane.approvals.sops.register(sop.document, sop.signature, admin, t.plane.now())
      if (!registered.ok) throw new Error(registered.message)
      return { path: `/api/sops/${registered.value.id}/revoke`, body: '' }
    },
  },
}

describe('role × route matrix', () => {
  let t: Target
  beforeAll(async () => {
    t = await startTarget()
  })
  afterAll(() => t.close())

  it('has an entry for every route of the OpenAPI document', async () => {
    const doc = JSON.parse((await t.send('GET', '/openapi.json', t.keys.admin)).text) as { paths: Record<string, Record<string, unknown>> }
    const routes = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method.toUpperCase()} ${path.replace(/^\/api\/skills\/[a-z0-9_]+\/invoke$/, '/api/skills/{key}/invoke')}`),
    )
    const missing = [...new Set(routes)].filter((route) => !MATRIX[route])
    expect(missing, 'routes without a matrix entry: decide who may use them').toEqual([])
  })

  it('lets exactly the allowed keys through every route', async () => {
    const cells: string[] = []
    const wrong: string[] = []
    for (const [route, entry] of Object.entries(MATRIX)) {
      const [method] = route.split(' ') as [string]
      for (const kind of KEY_KINDS) {
        if (kind === 'garbage' && route === 'GET /openapi.json') continue
        const { path, body } = await entry.request(t)
        const answer = await t.send(method, path, t.keys[kind], body)
        const allowed = (typeof entry.allow === 'string' ? holders(entry.allow) : entry.allow).includes(kind)
        // Past the role gate: any answer but a refusal or a server fault; a documented 503
        // `unavailable` (an agent without a model, say) is decided after the gate let the key in.
        const passed = answer.status < 500 || (answer.status === 503 && answer.text.includes('"code":"unavailable"'))
        const ok = allowed
          ? answer.status !== 0 && answer.status !== 401 && answer.status !== 403 && passed
          : kind === 'none' || kind === 'garbage'
            ? answer.status === 401
            : answer.status === 403 || answer.status === 404
        cells.push(`${route} as ${kind}: ${answer.status}`)
        if (!ok) wrong.push(`${route} as ${kind}: expected ${allowed ? 'allowed' : 'refused'}, got ${answer.status} ${answer.text.slice(0, 160)}`)
      }
    }
    console.log(`role × route matrix: ${Object.keys(MATRIX).length} routes × ${KEY_KINDS.length} keys = ${cells.length} cells, ${wrong.length} wrong`)
    expect(wrong).toEqual([])
  })

  it('finds in each route the ability its entry names, declared with requireAbility, and none on the others', () => {
    // What lets the keys through could be another ability held by the same roles: read what the route declares.
    const routes = createHttpApp(t.plane).routes
    const pattern = (path: string) => new RegExp(`^${path.replace(/\/\*$/, '(/.*)?').replace(/:[^/]+/g, '[^/]+')}$`)
    const declared = (route: string) => {
      const [method, path] = route.split(' ') as [string, string]
      const concrete = path.replace(/\{[^}]+\}/g, 'x')
      const found = routes.filter((r) => (r.method === method || r.method === 'ALL') && pattern(r.path).test(concrete))
      return [...new Set(found.map((r) => (r.handler as { ability?: Ability }).ability).filter((a) => a !== undefined))]
    }
    const wrong = Object.entries(MATRIX)
      .map(([route, entry]) => ({ route, expected: entry.gate ?? (typeof entry.allow === 'string' ? [entry.allow] : []), found: declared(route) }))
      .filter(({ expected, found }) => JSON.stringify([...found].sort()) !== JSON.stringify([...expected].sort()))
    expect(wrong).toEqual([])
  })

  it('answers each key its abilities from the same table on GET /api/me', async () => {
    for (const kind of KEYS) {
      const me = JSON.parse((await t.send('GET', '/api/me', t.keys[kind])).text) as { abilities: Record<string, boolean> }
      expect(Object.keys(me.abilities).sort(), kind).toEqual([...ABILITY_NAMES].sort())
      expect(me.abilities, kind).toEqual(abilitiesOf(HOLDER[kind]))
    }
  })
})
