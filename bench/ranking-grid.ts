import { rankingWith, type RankingOverrides, type RankingParameters } from '../src/discovery/index.js'
import type { RetrievalFigures } from './retrieval-metrics.js'

/** One ranking parameter the bench tunes and the values it tries. */
interface Coordinate {
  name: string
  values: readonly number[] | readonly boolean[]
  set(value: number | boolean): RankingOverrides
  /** Only with a learned history does it change a ranking (usage, relations). */
  historyOnly?: boolean
}

/** The grid every choice is made over; the product defaults (DEFAULT_RANKING) are a point of it. */
export const GRID: readonly Coordinate[] = [
  { name: 'k1', values: [0.9, 1.2, 1.5, 2, 3, 5], set: (v) => ({ k1: v as number }) },
  { name: 'b', values: [0.5, 0.75, 0.9], set: (v) => ({ b: v as number }) },
  { name: 'key', values: [0, 0.5, 1], set: (v) => ({ fields: { key: v as number } }) },
  { name: 'title', values: [0, 0.5, 1, 1.5, 2, 3], set: (v) => ({ fields: { title: v as number } }) },
  { name: 'category', values: [0, 0.3, 1, 1.5, 2], set: (v) => ({ fields: { category: v as number } }) },
  { name: 'prefix', values: [true, false], set: (v) => ({ prefix: v as boolean }) },
  { name: 'fuzzyFrom', values: [0, 6], set: (v) => ({ fuzzyFrom: v as number }) },
  { name: 'usage', values: [0.5, 1, 2], set: (v) => ({ usage: v as number }), historyOnly: true },
  { name: 'neighbours', values: [0, 0.3, 0.6, 1, 1.5, 2], set: (v) => ({ neighbours: v as number }), historyOnly: true },
  { name: 'relations', values: [0.05, 0.1, 0.3], set: (v) => ({ relations: v as number }), historyOnly: true },
]

/** A point of the grid: each coordinate's value. */
export type GridPoint = Readonly<Record<string, number | boolean>>

/** The point the product defaults sit on, where every descent starts. */
export function startingPoint(defaults: RankingParameters): GridPoint {
  return Object.fromEntries(
    GRID.map((c) => {
      const value = c.name in defaults.fields ? defaults.fields[c.name as keyof RankingParameters['fields']] : defaults[c.name as keyof RankingParameters]
      if (!(c.values as ReadonlyArray<unknown>).includes(value))
        throw new Error(`ranking grid: the default ${c.name} ${String(value)} is not among ${c.values.join(', ')}`)
      return [c.name, value as number | boolean]
    }),
  )
}

/** The point as setRanking overrides. */
export function overridesOf(point: GridPoint): RankingOverrides {
  return GRID.reduce<RankingOverrides>((acc, c) => {
    const o = c.set(point[c.name]!)
    return { ...acc, ...o, fields: { ...acc.fields, ...o.fields } }
  }, {})
}

export const parametersOf = (point: GridPoint): RankingParameters => rankingWith(overridesOf(point))

/** What the choice maximises on one set: Recall@5 + nDCG@5 + all-relevant-in-top-5. */
export const objective = (f: RetrievalFigures) => f.recall5 + f.ndcg5 + f.allIn5

export interface TunedSet {
  name: string
  group: string
  history: boolean
}

/**
 * Figures of every set at any point, each evaluated once per point that can change it (a set
 * without history is not evaluated again for a different usage or relations weight).
 */
export class GridEvaluator<S extends TunedSet> {
  readonly #cache = new Map<string, RetrievalFigures>()
  evaluations = 0

  constructor(
    readonly sets: readonly S[],
    readonly score: (set: S, overrides: RankingOverrides) => Promise<RetrievalFigures>,
  ) {}

  async figures(set: S, point: GridPoint): Promise<RetrievalFigures> {
    const id = `${set.name} ${JSON.stringify(GRID.filter((c) => set.history || !c.historyOnly).map((c) => point[c.name]))}`
    let figures = this.#cache.get(id)
    if (!figures) {
      this.evaluations++
      this.#cache.set(id, (figures = await this.score(set, overridesOf(point))))
    }
    return figures
  }

  /** The mean objective over the sets outside `heldOut` (every set when it is undefined). */
  async value(point: GridPoint, heldOut?: string): Promise<number> {
    const sets = this.sets.filter((s) => s.group !== heldOut)
    let sum = 0
    for (const set of sets) sum += objective(await this.figures(set, point))
    return sum / sets.length
  }

  /** Coordinate descent from `start`: each coordinate in turn to its best value (ties keep the current), until a pass changes none. */
  async choose(start: GridPoint, heldOut?: string, maxPasses = 2): Promise<GridPoint> {
    let point = start
    let best = await this.value(point, heldOut)
    for (let pass = 0; pass < maxPasses; pass++) {
      let moved = false
      for (const c of GRID) {
        for (const value of c.values) {
          if (value === point[c.name]) continue
          const candidate = { ...point, [c.name]: value }
          const v = await this.value(candidate, heldOut)
          if (v > best + 1e-9) {
            point = candidate
            best = v
            moved = true
          }
        }
      }
      if (!moved) break
    }
    return point
  }
}

/** A point in a line: `k1 1.2, b 0.75, …`. */
export const describePoint = (point: GridPoint) => GRID.map((c) => `${c.name} ${String(point[c.name])}`).join(', ')
