import { NavLink, Navigate, Route, Routes, useLocation } from 'react-router'
import { useSessionState } from './session/session'
import { SignInPage } from './pages/sign-in-page'
import { SkillsPage } from './pages/skills-page'
import { SkillPage } from './pages/skill-page'
import { ApprovalsPage } from './pages/approvals-page'
import { AuditPage } from './pages/audit-page'
import { HealthPage } from './pages/health-page'
import { CallPage } from './pages/call-page'
import { ConversationPage } from './pages/conversation-page'
import { AgentsPage } from './pages/agents-page'
import { AgentPage } from './pages/agent-page'
import { RunPage } from './pages/run-page'
import { RunComparePage } from './pages/run-compare-page'
import { SourcesPage } from './pages/sources-page'
import { PoliciesPage } from './pages/policies-page'
import { ConnectionsPage } from './pages/connections-page'
import { ConnectedNotice, PageErrorBoundary } from './components'

export function App() {
  const { session, checking } = useSessionState()
  const { pathname } = useLocation()
  if (checking) return <p className="centered">Checking your key…</p>
  if (!session) return <SignInPage />
  const can = session.abilities
  const shown = session.caller.displayName ?? session.caller.name
  const who = session.caller.kind === 'user' ? `${shown} · ${session.caller.role}` : `${shown} · agent`
  return (
    <>
      <header className="top">
        <span className="brand">skillplane</span>
        <nav aria-label="Console">
          <NavLink to="/skills">Skills</NavLink>
          <NavLink to="/agents">Agents</NavLink>
          <NavLink to="/approvals">Approvals</NavLink>
          {can.readAudit && <NavLink to="/audit">Audit</NavLink>}
          {can.readAudit && <NavLink to="/health">Health</NavLink>}
          {can.readEdges && <NavLink to="/sources">Sources</NavLink>}
          {can.managePolicies && <NavLink to="/policies">Policies</NavLink>}
          {can.connectAccounts && <NavLink to="/connections">Connections</NavLink>}
        </nav>
        <span className="who" data-testid="who">
          {who}
        </span>
        <button type="button" className="link" onClick={session.signOut}>
          Sign out
        </button>
      </header>
      <main>
        <ConnectedNotice />
        {/* The server loads this app for these page prefixes only (src/surfaces/console/console-routes.ts, APP_PAGES). */}
        <PageErrorBoundary key={pathname}>
          <Routes>
            <Route path="/" element={<Navigate to="/skills" replace />} />
            <Route path="/skills" element={<SkillsPage />} />
            <Route path="/skills/:key" element={<SkillPage />} />
            <Route path="/agents" element={<AgentsPage />} />
            <Route path="/agents/:id" element={<AgentPage />} />
            {can.runAgents && <Route path="/agents/:id/runs/compare" element={<RunComparePage />} />}
            {can.runAgents && <Route path="/runs/:id" element={<RunPage />} />}
            <Route path="/approvals" element={<ApprovalsPage />} />
            {can.readAudit && <Route path="/audit" element={<AuditPage />} />}
            {can.readAudit && <Route path="/audit/:callId" element={<CallPage />} />}
            {can.readAudit && <Route path="/health" element={<HealthPage />} />}
            {can.readAudit && <Route path="/conversations/:id" element={<ConversationPage />} />}
            {can.readEdges && <Route path="/sources" element={<SourcesPage />} />}
            {can.managePolicies && <Route path="/policies" element={<PoliciesPage />} />}
            {can.connectAccounts && <Route path="/connections" element={<ConnectionsPage />} />}
            <Route path="*" element={<NotFound />} />
          </Routes>
        </PageErrorBoundary>
      </main>
    </>
  )
}

function NotFound() {
  return (
    <section>
      <h1>Not here</h1>
      <p>This page does not exist, or your key may not see it.</p>
    </section>
  )
}
