/** What a listing shows of an entry: a server that writes its credential into one gets it scrubbed. */
interface Described {
  name?: string
  title?: string
  description?: string
  arguments?: Array<{ name: string; title?: string; description?: string }>
}

/** The entries with their names, titles and descriptions (a prompt's arguments' too) passed through `clean`. */
export function scrubListing<T extends Described>(entries: readonly T[], clean: (text: string) => string): T[] {
  return entries.map((entry) => {
    const copy = { ...entry, ...fields(entry, clean) }
    if (Array.isArray(entry.arguments)) copy.arguments = entry.arguments.map((a) => ({ ...a, ...fields(a, clean) }))
    return copy
  })
}

function fields(entry: Described, clean: (text: string) => string): Partial<Described> {
  const out: Partial<Described> = {}
  for (const key of ['name', 'title', 'description'] as const) if (typeof entry[key] === 'string') out[key] = clean(entry[key])
  return out
}
