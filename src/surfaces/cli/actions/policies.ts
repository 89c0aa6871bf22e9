import type { PolicyDecision, PolicyLevel } from '../../../policy/index.js'
import { withStore, localAdmin, type GlobalOptions } from '../open-plane.js'
import { formatTable } from '../format-table.js'
import { CliError } from '../cli-error.js'

export async function policiesList(o: GlobalOptions & { json?: boolean }): Promise<void> {
  const list = await withStore(o, async (plane) => plane.policies.list())
  if (o.json) return console.log(JSON.stringify(list, null, 2))
  if (list.length === 0) return console.log('no policy overrides: every skill follows its class default')
  console.log(
    formatTable(
      ['ID', 'SKILL', 'LEVEL', 'SUBJECT', 'DECISION', 'BY'],
      list.map((p) => [p.id, p.skill, p.level, p.subject, p.decision, p.createdBy]),
    ),
  )
}

export async function policiesSet(
  o: GlobalOptions & { skill: string; level: PolicyLevel; subject?: string; decision: PolicyDecision; json?: boolean },
): Promise<void> {
  const result = await withStore(o, (plane) =>
    plane.policies.set({ skill: o.skill, level: o.level, subject: o.subject, decision: o.decision }, localAdmin(), plane.now()),
  )
  if (!result.ok) throw new CliError(result.message)
  if (o.json) return console.log(JSON.stringify(result.policy, null, 2))
  const p = result.policy
  console.log(`policy ${p.id}: ${p.skill} for ${p.level}${p.level === 'global' ? '' : ` ${p.subject}`} is ${p.decision}`)
}

export async function policiesClear(id: string, o: GlobalOptions): Promise<void> {
  const cleared = await withStore(o, (plane) => plane.policies.clear(id, localAdmin()))
  if (!cleared) throw new CliError(`no policy "${id}"`)
  console.log(`cleared policy ${id} (${cleared.skill} for ${cleared.level} ${cleared.subject}: ${cleared.decision})`)
}
