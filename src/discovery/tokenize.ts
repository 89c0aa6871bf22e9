import { stemmer } from 'stemmer'

// Words too common in requests and descriptions to tell skills apart.
const STOP_WORDS = new Set(
  'a about all also an and any are as at be been but by can could do does for from get has have how i if in into is it its just ll me my need of on or our please re should so some than that the their them then there these this those to use using ve want was we what when where which who why will with would you your'.split(
    ' ',
  ),
)

/** Words of a text: split at anything not a letter or digit and at camelCase humps. */
export function tokenize(text: string): string[] {
  return text
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== '')
}

// Indexing and every query stem the same few thousand words over and over: each is stemmed once.
const STEMS_KEPT = 100_000
const stems = new Map<string, string | null>()

/**
 * A word as indexed and searched: lower case, stemmed (Porter), so "restarts" finds "restart".
 * Stop words, bare numbers and one-letter fragments ("I'm" → m) are dropped: they match everything alike.
 */
export function processTerm(term: string): string | null {
  let processed = stems.get(term)
  if (processed === undefined) {
    const lower = term.toLowerCase()
    processed = STOP_WORDS.has(lower) || lower.length < 2 || /^\p{N}+$/u.test(lower) ? null : stemmer(lower)
    // Words from queries are unbounded: the memo starts over rather than grow without end.
    if (stems.size >= STEMS_KEPT) stems.clear()
    stems.set(term, processed)
  }
  return processed
}

/** A text's indexed words with how often each occurs. */
export function termCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>()
  for (const word of tokenize(text)) {
    const term = processTerm(word)
    if (term !== null) counts.set(term, (counts.get(term) ?? 0) + 1)
  }
  return counts
}
