import type { AgentView } from '../api/types'
import { Chip } from '../components'

/** Whether the agent can run now, and if not why (its model's API key unset, say), before anyone presses Start. */
export function AgentAvailability({ agent }: { agent: AgentView }) {
  if (agent.available) return null
  return (
    <span className="agent-availability" data-testid="agent-unavailable">
      <Chip tone="bad">can&apos;t run</Chip> <span className="muted small">{agent.unavailableReason}</span>
    </span>
  )
}
