import { join } from 'node:path'
import { expect, it } from 'vitest'
import { databases, waitFor } from '../../test-support/databases.js'
import { admin, openTestPlane } from '../../test-support/fixtures.js'

const LISTING = join(import.meta.dirname, 'fixtures/listing-server.mjs')
const server = (name: string, templates: string[]) => ({
  name,
  command: process.execPath,
  args: [LISTING],
  env: { TEMPLATES: JSON.stringify(templates) },
})

it("reports a later server's template an earlier server's template covers, serving the earlier", async () => {
  const plane = await openTestPlane(databases[0]!, {
    mcpServers: [
      server('a', ['doc://{+path}', 'note://{id}']),
      // Every doc:// URI is a's; note://{n} is not all of note://{id} for the cheap check, so both stay.
      server('b', ['doc://pages/{n}', 'doc://{+path}', 'wiki://{+page}', 'note://{n}', 'doc:/']),
    ],
  })
  try {
    await waitFor(() => plane.sources.mcpServers().every((s) => s.state === 'connected') && plane.sources.mcpResources().length === 2)
    const problems = Object.fromEntries(plane.sources.mcpServers().map((s) => [s.name, s.problems]))
    expect(problems).toEqual({
      a: [],
      b: [
        `resource template "doc://pages/{n}": every URI it matches is matched by "doc://{+path}" of MCP server "a", earlier in the config, and read there; skipped`,
        `resource template "doc://{+path}" is also listed by MCP server "a", earlier in the config: that one is served; skipped`,
      ],
    })
    expect(plane.sources.mcpResources().map((s) => [s.server, s.templates.map((t) => t.uriTemplate)])).toEqual([
      ['a', ['doc://{+path}', 'note://{id}']],
      ['b', ['wiki://{+page}', 'note://{n}', 'doc:/']],
    ])
    // A URI the skipped template would match is read from the server that holds it.
    const read = await plane.invoke('a_read_resource', { uri: 'doc://pages/7' }, { caller: admin })
    expect(read.ok && (read.data as { contents: Array<{ text: string }> }).contents[0]!.text).toBe('doc://{+path}: doc://pages/7')
  } finally {
    await plane.close()
  }
})
