/** The longest URI matched against imported servers' templates (matching is a backtracking regex). */
export const MAX_URI_LENGTH = 2048
/** The most expressions an imported resource template may have. */
const MAX_EXPRESSIONS = 8
/** skillplane's own instruction skills' scheme on /mcp: never an imported server's. */
const RESERVED_SCHEME = 'skill'

/** Why `uri` is too long to be matched, or null. */
export function uriTooLong(uri: string): string | null {
  return uri.length > MAX_URI_LENGTH ? `the URI is ${uri.length} characters long; at most ${MAX_URI_LENGTH} are taken` : null
}

/** Whether `uri` (or a template's text) uses the reserved skill: scheme, in any case. */
export function reservedScheme(uri: string): boolean {
  return /^\s*skill:/i.test(uri)
}

/** Why a resource URI can't be an imported server's, or null. */
export function resourceProblem(uri: string): string | null {
  return reservedScheme(uri) ? `${RESERVED_SCHEME}: URIs are skillplane's instruction skills` : null
}

/**
 * Why an imported template can't be served, or null: it must start with a literal scheme (not
 * skill:), and stay cheap to match: few expressions, none adjacent, and at most one place where an
 * expression could also take the text up to the next one (each such place multiplies the work).
 */
export function templateProblem(template: string): string | null {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(template)?.[1]
  if (!scheme) return 'it does not start with a literal scheme (like "file:")'
  if (scheme.toLowerCase() === RESERVED_SCHEME) return `${RESERVED_SCHEME}: URIs are skillplane's instruction skills`
  const parts = [...template.matchAll(/\{([^}]*)\}/g)]
  if (parts.length > MAX_EXPRESSIONS) return `it has ${parts.length} expressions; at most ${MAX_EXPRESSIONS} are taken`
  let overlaps = 0
  for (let i = 1; i < parts.length; i++) {
    const previous = parts[i - 1]!
    const between = template.slice(previous.index + previous[0].length, parts[i]!.index) + prefixOf(operatorOf(parts[i]![1]!))
    if (between === '') return `its expressions ${previous[0]} and ${parts[i]![0]} are adjacent`
    if ([...between].every((c) => takes(operatorOf(previous[1]!), c))) overlaps++
  }
  if (overlaps > 1) return 'more than one of its expressions can take the text that separates it from the next'
  return null
}

function operatorOf(expression: string): string {
  return /^[+#./;?&]/.test(expression) ? expression[0]! : ''
}

/** The literal the SDK's matcher puts before an expression of this operator. */
function prefixOf(operator: string): string {
  return operator === '.' || operator === '/' || operator === '?' || operator === '&' ? operator : ''
}

/** Whether the SDK's pattern for an expression of this operator matches the character. */
function takes(operator: string, c: string): boolean {
  if (operator === '+' || operator === '#') return true
  if (operator === '?' || operator === '&') return c !== '&'
  if (operator === ';') return c !== '/'
  return c !== '/' && c !== ','
}
