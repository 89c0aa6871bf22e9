import { useState } from 'react'
import { api, unwrap } from '../api/client'
import { useApi } from '../api/use-api'
import { ErrorNote, JsonView } from '../components'

interface Part {
  type?: string
  text?: string
  toolName?: string
  input?: unknown
  output?: { type?: string; value?: unknown }
}
interface Message {
  role?: string
  content?: string | Part[]
}

/**
 * What the model was sent for one model step: the system prompt, the tools it was offered and the messages, loaded
 * when opened (GET /api/runs/{id}/steps/{index}/request), as the server stored them with secrets redacted.
 */
export function ModelRequestView({ runId, index }: { runId: string; index: number }) {
  const [open, setOpen] = useState(false)
  const request = useApi(
    () =>
      open ? unwrap(api.GET('/api/runs/{id}/steps/{index}/request', { params: { path: { id: runId, index: String(index) } } })) : Promise.resolve(undefined),
    [runId, index, open],
  )
  const sent = request.data
  return (
    <details className="model-request" onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>What the model was sent</summary>
      <ErrorNote error={request.error} />
      {open && !sent && !request.error && <p className="muted">Loading…</p>}
      {sent && (
        <>
          <h4>System prompt</h4>
          {sent.system ? (
            <pre className="said" aria-label="System prompt">
              {sent.system}
            </pre>
          ) : (
            <p className="muted">None.</p>
          )}
          <h4>Tools offered ({sent.tools.length})</h4>
          <ul className="offered" aria-label="Tools offered">
            {sent.tools.map((tool) => (
              <li key={tool.name}>
                <code>{tool.name}</code> {tool.description && <span className="muted">{tool.description}</span>}
              </li>
            ))}
          </ul>
          <h4>Messages ({sent.messages.length})</h4>
          <ol className="messages" aria-label="Messages">
            {(sent.messages as Message[]).map((message, k) => (
              <li key={k} data-role={message.role}>
                <span className="role">{message.role ?? '?'}</span>
                <MessageContent content={message.content} />
              </li>
            ))}
          </ol>
        </>
      )}
    </details>
  )
}

function MessageContent({ content }: { content: Message['content'] }) {
  if (typeof content === 'string') return <pre className="said">{content}</pre>
  if (!Array.isArray(content)) return <JsonView value={content} />
  return (
    <div className="parts">
      {content.map((part, k) =>
        part.type === 'text' || part.type === 'reasoning' ? (
          <pre key={k} className={`said ${part.type}`}>
            {part.text}
          </pre>
        ) : part.type === 'tool-call' ? (
          <div key={k}>
            calls <code>{part.toolName}</code>
            <JsonView value={part.input} />
          </div>
        ) : part.type === 'tool-result' ? (
          <div key={k}>
            result of <code>{part.toolName}</code>
            {/* A result is sent as { type, value }: json and text show their value. */}
            <JsonView value={part.output?.type === 'json' || part.output?.type === 'text' ? part.output.value : part.output} />
          </div>
        ) : (
          <JsonView key={k} value={part} />
        ),
      )}
    </div>
  )
}
