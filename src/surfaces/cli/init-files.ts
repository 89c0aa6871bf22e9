/** The files `skillplane init` writes, by path relative to the project. */
export const INIT_FILES: Record<string, string> = {
  'skillplane.config.ts': `import { defineConfig } from 'skillplane'
import { greet } from './skills/greet.js'

// skillplane serve, skillplane skills list, skillplane invoke greet … read this file.
export default defineConfig({
  skills: [greet],
  agents: [{ name: 'Assistant', description: 'Helps the team' }],
  // SKILL.md instruction skills the Assistant may activate.
  skillDirs: [{ path: '.agents/skills', agents: ['Assistant'] }],
})
`,
  'skills/greet.ts': `import { defineSkill, z } from 'skillplane'

// One definition: the tool schema, the HTTP endpoint, the MCP tool, the permission gate and the audit row.
export const greet = defineSkill({
  key: 'greet',
  description: 'Say hello to someone by name',
  class: 'safe',
  agents: ['Assistant'],
  input: z.object({ name: z.string().min(1).max(100) }),
  output: z.object({ message: z.string() }),
  run: ({ name }) => ({ message: \`Hello, \${name}!\` }),
})
`,
  '.agents/skills/team-conventions/SKILL.md': `---
name: team-conventions
description: The team's conventions for writing changes and their descriptions. Use when preparing a change for review.
---
# Team conventions

1. Keep each change small and about one thing.
2. Say in its description what changed and why, in plain words.
3. Name the tests that show it works.
`,
}

export const INIT_NEXT_STEPS = `Next:
  npx skillplane skills list               the skills this project defines
  npx skillplane invoke greet --input '{"name":"Ada"}'
  npx skillplane serve                     HTTP, /mcp and the console on 127.0.0.1:7420
`
