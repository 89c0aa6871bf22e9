/**
 * Compares a documented output with a real one. Run-specific values in the documented text
 * become patterns; ids and keys are also *bound*: the documented value stands for the real one
 * from then on (in later outputs and in later commands), so an example that reuses an id shown
 * earlier is checked against the id the run really made.
 */
export class Bindings {
  readonly #map = new Map<string, string>()
  /** What a doc's bare `sp_…` stands for: the admin key the server printed. */
  adminKey: string | null = null
  get(documented: string): string | undefined {
    return this.#map.get(documented)
  }
  set(documented: string, actual: string): void {
    this.#map.set(documented, actual)
  }
  /** Puts the real values into a command written with the documented ones (`sp_ab…` is a key shortened in the doc). */
  apply(command: string): string {
    let out = command
    for (const [documented, actual] of this.#map) out = out.split(documented).join(actual)
    return out.replace(/sp_([A-Za-z0-9_-]*)…/g, (whole, prefix: string) => {
      if (!prefix) return this.adminKey ?? whole
      const keys = [...this.#map.keys()].filter((k) => k.startsWith('sp_' + prefix) && /^sp_[A-Za-z0-9_-]{43}$/.test(k))
      return keys.length === 1 ? this.#map.get(keys[0]!)! : whole
    })
  }
}

const ULID = '[0-9A-HJKMNP-TV-Z]{26}'
const KEY = 'sp_[A-Za-z0-9_-]{43}'
/** Run-specific values: a documented one matches any real value of the same form. */
const VOLATILE: Array<{ source: string; pattern: string; bind: boolean }> = [
  { source: `\\b${ULID}\\b`, pattern: ULID, bind: true },
  { source: KEY, pattern: KEY, bind: true },
  // ISO timestamps, and the date and time `tar -tv` prints
  { source: '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(?:\\.\\d+)?Z', pattern: '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(?:\\.\\d+)?Z', bind: false },
  { source: '\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d', pattern: '\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d', bind: false },
  // durations
  { source: '"durationMs": ?\\d+', pattern: '"durationMs": ?\\d+', bind: false },
  // `…` in a documented output elides any text (the real output may hold a `…` of its own there)
  { source: '…', pattern: '[\\s\\S]*?', bind: false },
]
const VOLATILE_RE = new RegExp(VOLATILE.map((v) => `(${v.source})`).join('|'), 'g')
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** Trailing blanks on lines and at the end never count. */
export const tidy = (text: string) => text.replace(/[ \t]+$/gm, '').replace(/\s+$/, '')

/** Matches the real output against the documented one; on success records new bindings. */
export function matchOutput(documented: string, actual: string, bindings: Bindings): boolean {
  const groups: Array<{ name: string; documented: string }> = []
  const seen = new Map<string, string>()
  let pattern = ''
  let last = 0
  const doc = tidy(documented)
  for (const m of doc.matchAll(VOLATILE_RE)) {
    pattern += escape(doc.slice(last, m.index))
    last = m.index + m[0].length
    const kind = VOLATILE[m.slice(1).findIndex((g) => g !== undefined)]!
    const bound = kind.bind ? bindings.get(m[0]) : undefined
    if (bound !== undefined) pattern += escape(bound)
    else if (!kind.bind) pattern += kind.pattern
    else if (seen.has(m[0])) pattern += `\\k<${seen.get(m[0])}>`
    else {
      const name = `b${groups.length}`
      seen.set(m[0], name)
      groups.push({ name, documented: m[0] })
      pattern += `(?<${name}>${kind.pattern})`
    }
  }
  pattern += escape(doc.slice(last))
  const match = new RegExp(`^${pattern}$`).exec(tidy(actual))
  if (!match) return false
  for (const g of groups) bindings.set(g.documented, match.groups![g.name]!)
  return true
}

/** JSON values (one document, or one per line) compacted, so a reformatted doc compares equal. */
export function compactJson(text: string): string | null {
  const parse = (t: string) => {
    try {
      return JSON.stringify(JSON.parse(t))
    } catch {
      return null
    }
  }
  const whole = parse(text)
  if (whole !== null) return whole
  const lines = text.split('\n').filter((l) => l.trim())
  const each = lines.map(parse)
  return each.every((l) => l !== null) ? each.join('\n') : null
}

/** A documented `"…": "…"` member stands for the members left out. */
const elideMembers = (compact: string) => compact.replace(/,"…":"…"/g, '…').replace(/"…":"…",?/g, '…')

type Shape = string | Shape[] | { [key: string]: Shape }
function shapeOf(value: unknown): Shape {
  if (Array.isArray(value)) {
    const shapes = [...new Set(value.map((v) => JSON.stringify(shapeOf(v))))]
    return shapes.map((s) => JSON.parse(s) as Shape)
  }
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, shapeOf((value as Record<string, unknown>)[k])]),
    )
  }
  return value === null ? 'null' : typeof value
}

/** Same keys and value types (array elements: the set of their shapes), values themselves free. */
export function sameJsonShape(documented: string, actual: string): boolean {
  const shapes = (text: string) => {
    try {
      return JSON.stringify(
        text
          .split('\n')
          .filter((l) => l.trim())
          .map((l) => shapeOf(JSON.parse(l))),
      )
    } catch {
      try {
        return JSON.stringify([shapeOf(JSON.parse(text))])
      } catch {
        return null
      }
    }
  }
  const d = shapes(documented)
  return d !== null && d === shapes(actual)
}

/** Exact (with volatile values as patterns), else for JSON the same comparison on compacted text. */
export function compareOutput(documented: string, actual: string, bindings: Bindings, options: { shape: boolean }): boolean {
  if (options.shape) return sameJsonShape(documented, actual)
  if (matchOutput(documented, actual, bindings)) return true
  const doc = compactJson(documented)
  const real = compactJson(actual)
  if (doc === null || real === null) return false
  return matchOutput(elideMembers(doc), real, bindings)
}
