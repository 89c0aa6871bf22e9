/** A timestamp in the reader's local time, with the exact instant on hover. */
export function Time({ at }: { at: string | null | undefined }) {
  if (!at) return <span className="muted">—</span>
  const date = new Date(at)
  return (
    <time dateTime={at} title={at}>
      {date.toLocaleString()}
    </time>
  )
}
