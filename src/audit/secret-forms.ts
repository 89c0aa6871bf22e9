// Shorter values are not scrubbed anywhere: they would blank out ordinary words and numbers.
export const MIN_SCRUB_LENGTH = 4

/**
 * The forms in which a secret can travel back to a caller: as written; JSON-escaped (as
 * JSON.stringify writes it inside a string; with non-ASCII as \uXXXX in lower- or upper-case hex,
 * as Python's json.dumps and some Java libraries do; each also with `/` as `\/`, as PHP's
 * json_encode does); URL-encoded (encodeURIComponent, and as a query string or form body writes
 * it, space as `+`); base64 (padded and unpadded) and base64url. Empty for a value too short to scrub.
 */
export function secretForms(value: string): string[] {
  if (typeof value !== 'string' || value.length < MIN_SCRUB_LENGTH) return []
  const json = JSON.stringify(value).slice(1, -1)
  const hex = (c: string) => c.charCodeAt(0).toString(16).padStart(4, '0')
  const jsons = [json, json.replace(/[\u0080-\uffff]/g, (c) => `\\u${hex(c)}`), json.replace(/[\u0080-\uffff]/g, (c) => `\\u${hex(c).toUpperCase()}`)]
  const base64 = Buffer.from(value).toString('base64')
  const forms = new Set([
    value,
    ...jsons,
    ...jsons.map((form) => form.replaceAll('/', '\\/')),
    uriEncoded(value),
    new URLSearchParams([['', value]]).toString().slice(1),
    base64,
    base64.replace(/=+$/, ''),
    Buffer.from(value).toString('base64url'),
  ])
  return [...forms]
}

// A lone surrogate can't be URI-encoded; such a secret is never sent in a URL either.
function uriEncoded(value: string): string {
  try {
    return encodeURIComponent(value)
  } catch {
    return value
  }
}
