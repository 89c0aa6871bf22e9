// Links to the app's pages. Every part is encoded: keys, ids and names come from skills, configs and callers.
const part = encodeURIComponent

export const skillPath = (key: string) => `/skills/${part(key)}`
export const agentPath = (id: string) => `/agents/${part(id)}`
export const runPath = (id: string) => `/runs/${part(id)}`
export const compareRunsPath = (agentId: string, a: string, b: string) => `/agents/${part(agentId)}/runs/compare?a=${part(a)}&b=${part(b)}`
export const callPath = (callId: string) => `/audit/${part(callId)}`
export const conversationPath = (id: string) => `/conversations/${part(id)}`

/** An agent run's calls carry `run:<run id>` as their conversation; any other conversation is the caller's own. */
export const runOfConversation = (conversationId: string | null): string | null => {
  const id = conversationId?.startsWith('run:') ? conversationId.slice(4) : null
  return id && /^[0-9A-HJKMNP-TV-Z]{26}$/.test(id) ? id : null
}
