// The skillplane that scripts/mcp-conformance.mjs runs the MCP conformance suite against: the fixture
// server imported as `test` (its tools, prompts and resources carry the names the scenarios call) and,
// for the one scenario tool without the `test_` prefix, as `json` (`json_schema_2020_12_tool`).
import { join } from 'node:path'

const fixture = join(import.meta.dirname, 'conformance-server.mjs')
// CONFORMANCE_FIXTURE_FAULT=simple_text breaks that tool (an empty result), so a test can see an unexpected failure.
const fault = process.env.CONFORMANCE_FIXTURE_FAULT ? ['--fault', process.env.CONFORMANCE_FIXTURE_FAULT] : []

export default {
  mcpServers: [
    { name: 'test', command: process.execPath, args: [fixture, 'test', ...fault] },
    { name: 'json', command: process.execPath, args: [fixture, 'json'] },
  ],
}
