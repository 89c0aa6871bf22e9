import type { ChangeVersionRepository } from '../store/index.js'

/**
 * Which watched tables (skills, agents, bindings, policies) moved since the last look, by their
 * versions: the heartbeat reads one small table and reloads only what another manager changed.
 */
export class ChangeWatch {
  #seen = new Map<string, number>()

  constructor(private readonly repo: ChangeVersionRepository) {}

  /** Read the versions now; the answer tells whether any named table moved since the previous look. */
  async look(): Promise<(...tables: string[]) => boolean> {
    const now = await this.repo.read()
    const before = this.#seen
    this.#seen = now
    return (...tables) => tables.some((table) => before.get(table) !== now.get(table))
  }

  /** A reload failed: the next look reports every table as moved. */
  forget(): void {
    this.#seen = new Map()
  }
}
