import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'skillplane'
import { calculate } from './skills/calculate.js'
import { diskUsage } from './skills/disk-usage.js'
import { noteSkills } from './skills/notes.js'
import { NoteStore } from './skills/note-store.js'
import { depotAccount } from './skills/depot-account.js'
import { startDemoApi } from './services/demo-api.js'
import { startDemoOAuth, DEMO_CLIENT_ID } from './services/demo-oauth.js'

// What `npm start` serves. A function config receives the data dir for skills with state of their own.
// Evaluating it starts nothing: every CLI command loads it, and only `serve` (and `mcp`) start its services.
export default defineConfig(({ dataDir }) => {
  // The depot service the HTTP skills call (SKILLPLANE_DEMO_API_PORT moves it off 7421).
  const depotPort = Number(process.env.SKILLPLANE_DEMO_API_PORT ?? 7421)
  const depot = `http://127.0.0.1:${depotPort}`
  // Its accounts service, where people connect over OAuth 2 (SKILLPLANE_DEMO_OAUTH_PORT moves it off 7422).
  const accountsPort = Number(process.env.SKILLPLANE_DEMO_OAUTH_PORT ?? 7422)
  const accounts = `http://127.0.0.1:${accountsPort}`
  return {
    // Started by `serve` before the skill sources, stopped when it stops.
    services: [
      { name: 'depot', start: () => startDemoApi(depotPort) },
      { name: 'depot-accounts', start: () => startDemoOAuth(accountsPort) },
    ],
    skills: [calculate, diskUsage, ...noteSkills(new NoteStore(dataDir)), depotAccount(`${accounts}/api`)],
    // OAuth 2 providers people connect their own accounts with (docs/connections.md#oauth-connections).
    oauth: { providers: { depot: { title: 'Depot accounts', issuer: accounts, clientId: DEMO_CLIENT_ID, scopes: ['issues:read'] } } },
    agents: [
      {
        name: 'Fleet Autonomy',
        aliases: ['fleet'],
        description: 'Watches the fleet and keeps hosts healthy',
        // `npm run cli -- run --agent fleet "..."` needs OPENAI_API_KEY (or change the provider).
        model: { provider: 'openai', model: 'gpt-4.1-mini' },
        systemPrompt: 'You watch a fleet of hosts. Check disk usage when asked and open a ticket for any problem you find.',
      },
      { name: 'Notes Assistant', aliases: ['notes', 'scribe'], description: 'Keeps the team notebook' },
    ],
    // Subprocess skills: each folder with a skill.json under examples/packs.
    packDirs: [fileURLToPath(new URL('./packs', import.meta.url))],
    // SKILL.md folders the Notes Assistant may activate (list_skills, activate_skill, ...).
    skillDirs: [{ path: fileURLToPath(new URL('./agent-skills', import.meta.url)), agents: ['Notes Assistant'] }],
    // An MCP server (stdio): its tools become tickets_list, tickets_open, tickets_comment, tickets_delete.
    mcpServers: [
      {
        name: 'tickets',
        command: process.execPath,
        args: [fileURLToPath(new URL('./mcp/tickets-server.mjs', import.meta.url))],
        env: { TICKETS_FILE: join(dataDir, 'tickets.json') },
        agents: ['Fleet Autonomy'],
      },
    ],
    // Signatures by this key make an SOP citable; examples/sops/purge-old-notes.md is signed with it.
    // A declarative HTTP skill: no secret, ready at once.
    httpSkills: [
      {
        key: 'service_status',
        title: 'Depot service status',
        description: 'Ask the depot inventory service whether it is up and how many items it holds',
        method: 'GET',
        url: `${depot}/status`,
        category: 'depot',
        agents: ['Fleet Autonomy'],
      },
    ],
    // An OpenAPI source: one skill per operation (inventory_list_items, ...), each needing the
    // INVENTORY_TOKEN secret (`skillplane secrets set INVENTORY_TOKEN`; the demo service takes demo-token).
    openapi: [
      {
        name: 'inventory',
        spec: fileURLToPath(new URL('./openapi/inventory.yaml', import.meta.url)),
        baseUrl: depot,
        auth: { type: 'bearer', secret: 'INVENTORY_TOKEN' },
        agents: ['Fleet Autonomy'],
      },
    ],
    sopKeys: [{ name: 'ops-lead', publicKey: readFileSync(new URL('./sop-keys/ops-lead.pub', import.meta.url), 'utf8') }],
  }
})
