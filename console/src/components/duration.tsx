/** How long a call took, or a dash while it runs (or when it never started). */
export function Duration({ ms }: { ms: number | null | undefined }) {
  return <>{ms == null ? '—' : `${ms} ms`}</>
}
