import { describe, expect, it } from 'vitest'
import { createSkill } from '../../../skill/index.js'
import { HOST_SKILL_KEYS, hostSkills } from './index.js'

describe('hostSkills', () => {
  it('offers the shell only when allowed', () => {
    const without = hostSkills({ allowRead: ['/var/log'], allowShell: false }).map((skill) => skill.key)
    expect(without).toEqual(['probe_http', 'probe_dns', 'probe_tcp', 'tail_file', 'read_journal', 'host_load', 'host_processes', 'restart_service'])
    expect(hostSkills({ allowRead: [], allowShell: true }).map((skill) => skill.key)).toEqual([...without, 'run_command'])
    expect(HOST_SKILL_KEYS).toEqual([...without, 'run_command'])
  })

  it('are host skills with zod input and output schemas that register as they are', () => {
    for (const skill of hostSkills({ allowRead: ['/var/log'], allowShell: true })) {
      const registered = createSkill(skill, { source: 'edge', origin: 'test', defaultTimeoutMs: 30_000 })
      expect(registered).toMatchObject({ scope: 'host', category: 'host' })
      expect(['safe', 'mutating', 'dangerous']).toContain(registered.class)
      expect(registered.title).not.toBe('')
      expect(registered.output).not.toBeNull()
      expect(registered.input.jsonSchema.type).toBe('object')
    }
    const classes = Object.fromEntries(hostSkills({ allowRead: [], allowShell: true }).map((skill) => [skill.key, skill.class]))
    expect(classes).toMatchObject({ restart_service: 'mutating', run_command: 'dangerous', probe_http: 'safe', tail_file: 'safe' })
  })
})
