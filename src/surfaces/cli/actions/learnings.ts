import type { Learning, LearningListQuery } from '../../../learnings/index.js'
import { localAdmin, withStore, type GlobalOptions } from '../open-plane.js'
import { formatTable, truncate } from '../format-table.js'
import { CliError } from '../cli-error.js'

type ListOptions = GlobalOptions & { status?: string; category?: string; agent?: string; skill?: string; limit: string; json?: boolean }

export async function learningsList(o: ListOptions): Promise<void> {
  const limit = Number(o.limit)
  const query = { status: o.status, category: o.category, agent: o.agent, skill: o.skill, limit } as LearningListQuery
  const list = await withStore(o, (plane) => plane.values.learnings.list(query))
  if (o.json) return console.log(JSON.stringify(list, null, 2))
  if (list.length === 0) return console.log('no learnings')
  console.log(
    formatTable(
      ['ID', 'CATEGORY', 'IMPORTANCE', 'STATUS', 'SKILL', 'AGENT', 'TITLE'],
      list.map((l) => [l.id, l.category, l.importance.toFixed(2), state(l), l.skill ?? '-', l.agent ?? '-', truncate(l.title, 60)]),
    ),
  )
}

export async function learningJudge(action: 'verify' | 'disprove', id: string, o: GlobalOptions & { json?: boolean }): Promise<void> {
  const judged = await withStore(o, (plane) => plane.values.learnings[action](id, localAdmin()))
  if (!judged) throw new CliError(`no learning ${id}`)
  if (o.json) return console.log(JSON.stringify(judged, null, 2))
  console.log(`${action === 'verify' ? 'verified' : 'disproved'} learning ${judged.id} "${judged.title}" (importance ${judged.importance.toFixed(2)})`)
}

function state(l: Learning): string {
  return l.verification ? `${l.status}, ${l.verification}` : l.status
}
