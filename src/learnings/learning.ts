/** A learning in its public shape (the API, the CLI, recall_learnings). */
export interface Learning {
  id: string
  category: 'discovery' | 'pattern'
  title: string
  content: string
  tags: string[]
  /** Importance now: the stored value decayed to this moment. */
  importance: number
  status: 'active' | 'deprecated'
  verification: 'verified' | 'disproved' | null
  /** The skill whose call made it, the agent that call was for, and the call. */
  skill: string | null
  agent: string | null
  callId: string | null
  createdBy: { id: string; name: string }
  createdAt: string
  updatedAt: string
}

export const LEARNING_LIMITS = {
  titleLength: 200,
  contentLength: 4_000,
  tags: 10,
  tagLength: 50,
} as const
