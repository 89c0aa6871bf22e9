import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { DEFAULT_RANKING } from '../../src/discovery/index.js'
import { ROOT } from './run-doc.js'

// The bench moves the defaults; the docs' table of ranking parameters must move with them.
it('docs/discovery.md shows every ranking parameter with its default, in its table and its config example', () => {
  const doc = readFileSync(join(ROOT, 'docs/discovery.md'), 'utf8')
  const documented = new Map([...doc.matchAll(/^\| `([\w.]+)` \| [^|]+ \| `([^`]+)` \|/gm)].map((m) => [m[1]!, m[2]!]))
  const { fields, ...rest } = DEFAULT_RANKING
  const defaults = new Map<string, string>([
    ...Object.entries(rest).map(([name, value]): [string, string] => [name, String(value)]),
    ...Object.entries(fields).map(([name, value]): [string, string] => [`fields.${name}`, String(value)]),
  ])
  expect(Object.fromEntries([...documented].filter(([name]) => defaults.has(name) || /^fields\./.test(name)))).toEqual(Object.fromEntries(defaults))
  const example = doc.slice(doc.indexOf('    ranking: {'), doc.indexOf('```', doc.indexOf('    ranking: {')))
  for (const [name, value] of Object.entries(rest)) expect(example).toContain(`${name}: ${value},`)
  expect(example).toContain(
    `fields: { ${Object.entries(fields)
      .map(([name, value]) => `${name}: ${value}`)
      .join(', ')} },`,
  )
})
