import leven from 'leven'

/**
 * The candidate nearest to a mistyped word, or undefined when none is near enough to be the one
 * meant: a short word may be off by one letter, a longer one by two or three. Case is ignored.
 */
export function closestMatch(word: string, candidates: Iterable<string>): string | undefined {
  const typed = word.toLowerCase()
  const limit = typed.length <= 3 ? 1 : typed.length <= 6 ? 2 : 3
  let best: string | undefined
  let bestDistance = limit + 1
  for (const candidate of candidates) {
    if (candidate === word) continue
    const distance = leven(typed, candidate.toLowerCase(), { maxDistance: bestDistance })
    if (distance < bestDistance) {
      best = candidate
      bestDistance = distance
    }
  }
  return best
}

/** ` (did you mean "x"?)` for the closest candidate, or nothing: to append to a message naming `word`. */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const match = closestMatch(word, candidates)
  return match === undefined ? '' : ` (did you mean "${match}"?)`
}

/** `unknown field "clas" (did you mean "class"?)`: the message for a key an object may not have. */
export function unknownField(key: string, known: Iterable<string>): string {
  return `unknown field ${JSON.stringify(key)}${didYouMean(key, known)}`
}
