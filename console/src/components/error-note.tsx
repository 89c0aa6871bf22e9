import type { ApiError } from '../api/client'

export function ErrorNote({ error }: { error: ApiError | undefined }) {
  if (!error) return null
  return (
    <p className="error" role="alert">
      {error.message} <span className="muted">({error.code})</span>
    </p>
  )
}
