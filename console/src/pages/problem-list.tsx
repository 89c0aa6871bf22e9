/** What a source could not turn into skills, one line each. */
export function ProblemList({ problems, label }: { problems: string[]; label?: string }) {
  if (problems.length === 0) return null
  return (
    <ul className="problems" aria-label={label}>
      {problems.map((p, i) => (
        <li key={i} className="error">
          {p}
        </li>
      ))}
    </ul>
  )
}
