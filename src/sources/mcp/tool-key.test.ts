import { describe, expect, it } from 'vitest'
import { isValidKey } from '../../skill/skill-key.js'
import { toolKey } from './tool-key.js'

describe('toolKey', () => {
  it('folds MCP tool names into the key rules', () => {
    expect(toolKey('fs', 'read_file')).toBe('fs_read_file')
    expect(toolKey('gh', 'createPullRequest')).toBe('gh_create_pull_request')
    expect(toolKey('k8s', 'pods.list--all')).toBe('k8s_pods_list_all')
    expect(toolKey('x', 'HTTPGet')).toBe('x_httpget')
    expect(toolKey('x', '---')).toMatch(/^x_[0-9a-f]{8}$/)
    expect(toolKey('x', 'ツール')).toMatch(/^x_[0-9a-f]{8}$/)
    expect(toolKey('gh', 'get_user', true)).toMatch(/^gh_get_user_[0-9a-f]{8}$/)
    expect(toolKey('gh', 'get_user', true)).not.toBe(toolKey('gh', 'getUser', true))
  })

  it('keeps long keys within 64 characters, stable and distinct', () => {
    const a = toolKey('server', 'a'.repeat(80) + '_one')
    const b = toolKey('server', 'a'.repeat(80) + '_two')
    expect(a).toHaveLength(64)
    expect(isValidKey(a) && isValidKey(b)).toBe(true)
    expect(a).not.toBe(b)
    expect(toolKey('server', 'a'.repeat(80) + '_one')).toBe(a)
  })
})
