#!/usr/bin/env node
// The demo's MCP server: a small ticket tracker over stdio, written with the official MCP SDK.
// skillplane imports its tools as tickets_list, tickets_open, tickets_comment and tickets_delete,
// their classes following the annotations below. Tickets live in the JSON file TICKETS_FILE.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { z } from 'zod'

const file = process.env.TICKETS_FILE
if (!file) {
  process.stderr.write('TICKETS_FILE is not set: where should the tickets live?\n')
  process.exit(2)
}
const load = () => (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : { next: 1, tickets: [] })
const save = (state) => {
  // Write then rename, so a crash never leaves half a file.
  writeFileSync(`${file}.tmp`, JSON.stringify(state, null, 2))
  renameSync(`${file}.tmp`, file)
}
const ticket = z.object({
  id: z.number().int(),
  title: z.string(),
  host: z.string().nullable(),
  severity: z.enum(['low', 'high', 'critical']),
  status: z.enum(['open', 'closed']),
  comments: z.array(z.string()),
})
const reply = (text, structuredContent) => ({ content: [{ type: 'text', text }], structuredContent })
const missing = (id) => ({ isError: true, content: [{ type: 'text', text: `no ticket #${id}` }] })

const server = new McpServer({ name: 'tickets', version: '1.0.0' })

server.registerTool(
  'list',
  {
    title: 'List tickets',
    description: 'List tickets, open ones by default, optionally for one host.',
    inputSchema: { status: z.enum(['open', 'closed', 'all']).default('open'), host: z.string().optional() },
    outputSchema: { tickets: z.array(ticket) },
    annotations: { readOnlyHint: true },
  },
  async ({ status, host }) => {
    const tickets = load().tickets.filter((t) => (status === 'all' || t.status === status) && (!host || t.host === host))
    return reply(tickets.map((t) => `#${t.id} [${t.severity}] ${t.title}${t.host ? ` (${t.host})` : ''}`).join('\n') || 'no tickets', { tickets })
  },
)

server.registerTool(
  'open',
  {
    title: 'Open a ticket',
    description: 'Open a ticket about a problem, optionally on one host.',
    inputSchema: { title: z.string().min(3).max(200), host: z.string().optional(), severity: z.enum(['low', 'high', 'critical']).default('low') },
    outputSchema: { ticket },
    annotations: { readOnlyHint: false, destructiveHint: false },
  },
  async ({ title, host, severity }) => {
    const state = load()
    const created = { id: state.next++, title, host: host ?? null, severity, status: 'open', comments: [] }
    state.tickets.push(created)
    save(state)
    return reply(`opened #${created.id}`, { ticket: created })
  },
)

server.registerTool(
  'comment',
  {
    title: 'Comment on a ticket',
    description: 'Add a comment to a ticket, and close it when the problem is solved.',
    inputSchema: { id: z.number().int().positive(), text: z.string().min(1).max(2000), close: z.boolean().default(false) },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  },
  async ({ id, text, close }) => {
    const state = load()
    const found = state.tickets.find((t) => t.id === id)
    if (!found) return missing(id)
    found.comments.push(text)
    if (close) found.status = 'closed'
    save(state)
    return reply(`commented on #${id}${close ? ' and closed it' : ''}`)
  },
)

server.registerTool(
  'delete',
  {
    title: 'Delete a ticket',
    description: 'Delete a ticket and its history for good.',
    inputSchema: { id: z.number().int().positive() },
    annotations: { destructiveHint: true },
  },
  async ({ id }) => {
    const state = load()
    const before = state.tickets.length
    state.tickets = state.tickets.filter((t) => t.id !== id)
    if (state.tickets.length === before) return missing(id)
    save(state)
    return reply(`deleted #${id}`)
  },
)

await server.connect(new StdioServerTransport())
