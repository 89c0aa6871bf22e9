import { describe, expect, it } from 'vitest'
import { SkillplaneError, type ErrorCode } from './index.js'
import { DefinitionError } from '../skill/index.js'
import { StoreError } from '../store/index.js'
import { ConfigError } from '../config/index.js'
import { AccountError } from '../accounts/index.js'
import { SharingError, SyncRefusedError } from '../registry/index.js'
import { ConnectionValueError } from '../connections/index.js'
import { IdentityProviderUnavailableError, InvalidTokenError, SignInError, TokenRefusedError } from '../identity/index.js'
import { DeadlineExceeded, EdgeDeadlineExceeded, EdgeUnavailable, ShuttingDown, SkillError, isSkillError } from '../runtime/index.js'
import { ArchiveError, BundleError } from '../install/index.js'
import { IntegrityError, LockfileError, SourceError } from '../install/bundle-error.js'
import { EgressError } from '../sources/http/egress-error.js'
import { MemoryError } from '../memory/index.js'
import { LearningError } from '../learnings/index.js'
import { EdgeRefused } from '../edge-agent/index.js'
import { SkillCallError, UnknownAgentError } from '../ai-sdk/index.js'
import { RunError } from '../agents/index.js'
import { CliError } from '../surfaces/cli/cli-error.js'
import { statusForCode } from '../surfaces/http/status-for-code.js'

// Each error class, its name, and the code (so the HTTP status) a caller receives when it reaches a surface.
const errors: Array<[SkillplaneError, string, ErrorCode]> = [
  [new DefinitionError('duplicate skill key'), 'DefinitionError', 'invalid_input'],
  [new StoreError('cannot open the database'), 'StoreError', 'unavailable'],
  [new ConfigError('no config'), 'ConfigError', 'invalid_input'],
  [new AccountError('conflict', 'taken'), 'AccountError', 'conflict'],
  [new SharingError('no such agent'), 'SharingError', 'invalid_input'],
  [new SyncRefusedError('would orphan'), 'SyncRefusedError', 'conflict'],
  [new ConnectionValueError('bad name'), 'ConnectionValueError', 'invalid_input'],
  [new SignInError('refused'), 'SignInError', 'unauthorized'],
  [new InvalidTokenError('expired'), 'InvalidTokenError', 'unauthorized'],
  [new TokenRefusedError('no role'), 'TokenRefusedError', 'denied'],
  [new IdentityProviderUnavailableError('down'), 'IdentityProviderUnavailableError', 'unavailable'],
  [new DeadlineExceeded(50), 'TimeoutError', 'timeout'],
  [new ShuttingDown(), 'AbortError', 'unavailable'],
  [new EdgeUnavailable('gone'), 'EdgeUnavailable', 'edge_unavailable'],
  [new EdgeDeadlineExceeded('late'), 'EdgeDeadlineExceeded', 'timeout'],
  [new SkillError('not_found', 'no file'), 'SkillError', 'not_found'],
  [new BundleError('bad'), 'BundleError', 'invalid_input'],
  [new SourceError('bad source'), 'SourceError', 'invalid_input'],
  [new ArchiveError('a/b', 'a link'), 'ArchiveError', 'invalid_input'],
  [new LockfileError('bad lockfile'), 'LockfileError', 'invalid_input'],
  [new IntegrityError('s', 'hash differs'), 'IntegrityError', 'invalid_input'],
  [new EgressError('blocked host'), 'EgressError', 'executor_error'],
  [new MemoryError('pool full'), 'MemoryError', 'invalid_input'],
  [new LearningError('bad category'), 'LearningError', 'invalid_input'],
  [new EdgeRefused('revoked'), 'EdgeRefused', 'denied'],
  [new UnknownAgentError('x', []), 'UnknownAgentError', 'not_found'],
  [new SkillCallError('refused', 'denied', 'call-1'), 'SkillCallError', 'denied'],
  [new RunError('no model', 'unavailable'), 'RunError', 'unavailable'],
  [new CliError('bad flag'), 'CliError', 'invalid_input'],
]

describe('SkillplaneError', () => {
  it.each(errors)('%s is a SkillplaneError named %s with code %s, which has an HTTP status', (error, name, code) => {
    expect(SkillplaneError.isInstance(error)).toBe(true)
    expect(error).toBeInstanceOf(SkillplaneError)
    expect(error).toBeInstanceOf(Error)
    expect(error.name).toBe(name)
    expect(error.code).toBe(code)
    expect(statusForCode(error.code)).toBeGreaterThanOrEqual(200)
  })

  it('keeps each class its messages and fields', () => {
    expect(new DeadlineExceeded(50).message).toBe('the call exceeded its 50 ms deadline')
    expect(new ArchiveError(null, 'too large')).toMatchObject({ message: 'archive refused: too large', entry: null, reason: 'too large' })
    expect(new SkillCallError('refused', 'approval_required', 'call-1', 'ap-1')).toMatchObject({ callId: 'call-1', approvalId: 'ap-1' })
    expect(new CliError('x', 3).exitCode).toBe(3)
  })

  it('recognises the brand, not the shape: errors of another copy of the package, never a look-alike', () => {
    const foreign = Object.assign(new Error('x'), { [Symbol.for('skillplane.error')]: true, code: 'denied' })
    expect(SkillplaneError.isInstance(foreign)).toBe(true)
    for (const other of [
      new Error('x'),
      Object.assign(new Error('x'), { code: 'denied' }),
      { [Symbol.for('skillplane.error')]: 'yes' },
      null,
      undefined,
      'denied',
      42,
    ])
      expect(SkillplaneError.isInstance(other)).toBe(false)
  })

  it("tells a SkillError by its own brand: an executor's refusal, from this copy or another, and no other SkillplaneError", () => {
    const foreign = Object.assign(new Error('x'), { [Symbol.for('skillplane.error')]: true, [Symbol.for('skillplane.skill-error')]: true, code: 'denied' })
    expect(SkillError.isInstance(new SkillError('denied', 'no'))).toBe(true)
    expect(SkillError.isInstance(foreign)).toBe(true)
    expect(isSkillError(foreign)).toBe(true)
    expect(SkillError.isInstance(new MemoryError('pool full'))).toBe(false)
    expect(isSkillError(new RunError('no model'))).toBe(false)
  })
})
