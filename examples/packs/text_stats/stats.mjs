#!/usr/bin/env node
// A skill pack: the input arrives as JSON on stdin; one JSON value goes to stdout.
let raw = ''
process.stdin.setEncoding('utf8')
process.stdin.on('data', (chunk) => (raw += chunk))
process.stdin.on('end', () => {
  const { text } = JSON.parse(raw)
  const words = text.split(/\s+/).filter(Boolean)
  const longestWord = words.reduce((best, w) => (w.length > (best?.length ?? 0) ? w : best), null)
  process.stdout.write(JSON.stringify({ lines: text === '' ? 0 : text.split('\n').length, words: words.length, characters: [...text].length, longestWord }))
})
