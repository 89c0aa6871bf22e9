// Time, tokens and money as a person reads them; each keeps its exact figure in `data-value` (and on hover).

/** Milliseconds as ms, seconds or minutes. */
export function elapsed(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`
  const minutes = Math.floor(ms / 60_000)
  return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`
}

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 6 })

/** A span of time, or a dash when it is unknown (a step still running, or recorded before steps were timed). */
export function Elapsed({ ms }: { ms: number | null | undefined }) {
  if (ms == null) return <span className="muted">—</span>
  return (
    <span data-value={ms} title={`${ms} ms`}>
      {elapsed(ms)}
    </span>
  )
}

/** A count of tokens, or a dash when the provider reported none. */
export function Tokens({ count }: { count: number | null | undefined }) {
  if (count == null) return <span className="muted">—</span>
  return <span data-value={count}>{count.toLocaleString('en-US')}</span>
}

/** A cost in US dollars, or why there is none: the model has no pricing, or the provider reported no usage. */
export function Cost({ usd: amount }: { usd: number | null | undefined }) {
  if (amount == null)
    return (
      <span className="muted" title="No pricing is configured for this model, or the provider reported no usage">
        —
      </span>
    )
  return (
    <span data-value={amount} title={`${amount} USD`}>
      {usd.format(amount)}
    </span>
  )
}
