import leven from 'leven'

/**
 * The candidate nearest to a mistyped word, or undefined when none is near enough to be the one
 * meant: a word of up to five letters may be off by one edit, a longer one by two, one over ten
 * letters by three. Two neighbouring letters swapped count as one edit; a word of three letters
 * or more that starts a candidate (`apiKey`, `apiKeyEnv`) is near too, after closer ones; case is ignored.
 */
export function closestMatch(word: string, candidates: Iterable<string>): string | undefined {
  const typed = word.toLowerCase()
  const limit = typed.length <= 5 ? 1 : typed.length <= 10 ? 2 : 3
  let best: string | undefined
  let bestDistance = limit + 1
  for (const candidate of candidates) {
    if (candidate === word) continue
    const other = candidate.toLowerCase()
    const distance = swapsTwo(typed, other)
      ? 1
      : Math.min(leven(typed, other, { maxDistance: bestDistance }), typed.length >= 3 && other.startsWith(typed) ? limit : Infinity)
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
  return match === undefined ? '' : ` (did you mean ${JSON.stringify(match)}?)`
}

/** `unknown field "clas" (did you mean "class"?)`: the message for a key an object may not have. */
export function unknownField(key: string, known: Iterable<string>): string {
  return `unknown field ${JSON.stringify(key)}${didYouMean(key, known)}`
}

// "calss" for "class": the commonest typing slip, two edits to Levenshtein.
function swapsTwo(a: string, b: string): boolean {
  if (a.length !== b.length) return false
  let i = 0
  while (i < a.length && a[i] === b[i]) i++
  return i < a.length - 1 && a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2)
}
