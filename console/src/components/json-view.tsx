/** JSON as text: React escapes it, so nothing a skill returns can become markup. */
export function JsonView({ value, label }: { value: unknown; label?: string }) {
  return (
    <pre className="json" aria-label={label}>
      {value === undefined ? '—' : JSON.stringify(value, null, 2)}
    </pre>
  )
}
