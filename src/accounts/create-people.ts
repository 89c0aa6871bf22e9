import type { KeyRepository, SessionRepository, UserRepository } from '../store/index.js'
import { ApiKeys } from './api-keys.js'
import { Groups } from './groups.js'
import { Sessions } from './sessions.js'
import { Users } from './users.js'
import type { RecordEvent } from './accounts-deps.js'

export interface PeopleStores {
  users: UserRepository
  keys: KeyRepository
  sessions: SessionRepository
  /** Where identity changes are audited. */
  record: RecordEvent
  now(): string
}

/** Users, groups, API keys and sessions, connected: who a key or session stands for changes with its user at once. */
export function createPeople(stores: PeopleStores): { users: Users; groups: Groups; keys: ApiKeys; sessions: Sessions } {
  const { now } = stores
  const identity = {
    repo: stores.users,
    record: stores.record,
    // The keys and sessions built below are what forget: a user's change reaches them only after start.
    changed: () => {
      keys.forget()
      sessions.forget()
    },
    disabled: (userId: string): Promise<number> => sessions.closeForUser(userId),
    now,
  }
  const users = new Users(identity)
  const keys = new ApiKeys(stores.keys, users)
  const sessions = new Sessions(stores.sessions, users, now)
  return { users, groups: new Groups(identity, users), keys, sessions }
}
