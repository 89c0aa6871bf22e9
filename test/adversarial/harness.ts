import { chmodSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { databases, tempDir } from '../../src/test-support/databases.js'
import { agentCaller, openTestPlane } from '../../src/test-support/fixtures.js'
import { sopSigner } from '../../src/test-support/sop.js'
import type { Skillplane } from '../../src/agents/index.js'
import type { SkillplaneConfig } from '../../src/config/define-config.js'
import { startHttpServer, type HttpServer } from '../../src/surfaces/http/start-http-server.js'

/** Who knocks: no key, a garbage key, each role, an agent key for its own agent and a stranger's. */
export const KEY_KINDS = ['none', 'garbage', 'viewer', 'agent', 'stranger', 'operator', 'admin'] as const
export type KeyKind = (typeof KEY_KINDS)[number]

export interface Target {
  plane: Skillplane
  server: HttpServer
  keys: Record<KeyKind, string | null>
  signer: ReturnType<typeof sopSigner>
  /** One HTTP request; a body string is sent as is. Never throws: a failed fetch is status 0. */
  send(method: string, path: string, key: string | null, body?: string): Promise<{ status: number; type: string; text: string; retryAfter: string | null }>
  close(): Promise<void>
}

/**
 * A real server on SQLite with the test skills, two schemaless packs (one mutating: whatever keys
 * it is sent reach it), keys of every kind and short deadlines.
 */
export async function startTarget(config: SkillplaneConfig = {}): Promise<Target> {
  const signer = sopSigner()
  const packs = tempDir('skillplane-adversarial-packs-')
  for (const [name, skillClass] of [
    ['echo_input', 'safe'],
    ['file_ticket', 'mutating'],
  ] as const) {
    mkdirSync(join(packs, name))
    writeFileSync(join(packs, name, 'run.sh'), '#!/bin/sh\nexec cat\n')
    chmodSync(join(packs, name, 'run.sh'), 0o755)
    writeFileSync(
      join(packs, name, 'skill.json'),
      JSON.stringify({ name, description: `Echoes its input (${skillClass})`, entry: 'run.sh', class: skillClass }),
    )
  }
  const plane = await openTestPlane(databases[0]!, {
    packDirs: [packs],
    sopKeys: [signer.config],
    defaults: { timeoutMs: 2_000 },
    approvals: { waitTimeoutMs: 1_000 },
    // A provider nothing connects to: links are made without asking it.
    oauth: { providers: { matrix: { authorizationEndpoint: 'http://127.0.0.1:9/authorize', tokenEndpoint: 'http://127.0.0.1:9/token', clientId: 'matrix' } } },
    ...config,
  })
  const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
  const make = async (name: string, role: 'admin' | 'operator' | 'viewer' | 'agent', agentId?: string) =>
    (await plane.people.keys.create({ name, role, agentId }, plane.now())).key
  const keys: Record<KeyKind, string | null> = {
    none: null,
    garbage: 'sp_not-a-real-key',
    viewer: await make('vera', 'viewer'),
    agent: await make('helper-bot', 'agent', 'helper'),
    stranger: await make('other-bot', 'agent', 'other'),
    operator: await make('oscar', 'operator'),
    admin: await make('alice', 'admin'),
  }
  return {
    plane,
    server,
    keys,
    signer,
    async send(method, path, key, body) {
      try {
        const response = await fetch(server.url + path, {
          method,
          headers: {
            ...(key !== null && { authorization: `Bearer ${key}` }),
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body: method === 'GET' || method === 'HEAD' ? undefined : body,
        })
        const type = response.headers.get('content-type') ?? ''
        return {
          status: response.status,
          type,
          // An event stream never ends: its first chunk is the answer.
          text: type.startsWith('text/event-stream') ? await firstChunk(response) : await response.text(),
          retryAfter: response.headers.get('retry-after'),
        }
      } catch {
        return { status: 0, type: '', text: '', retryAfter: null }
      }
    },
    async close() {
      await server.close()
      await plane.close()
    },
  }
}

export const helperCaller = agentCaller('helper')

async function firstChunk(response: Response): Promise<string> {
  const reader = response.body!.getReader()
  const { value } = await reader.read()
  await reader.cancel()
  return new TextDecoder().decode(value)
}
