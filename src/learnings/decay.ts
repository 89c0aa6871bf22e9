const DAY_MS = 24 * 60 * 60 * 1000

/** How learnings age and grow (the numbers of issue 14, documented in docs/memory-and-learnings.md). */
export const DECAY = {
  /** Share of importance lost per day: importance × (1 − rate)^days. */
  ratePerDay: 0.003,
  /** Importance never decays below this. */
  floor: 0.05,
  /** A learning at least `deprecateAfterDays` old whose importance fell below this is deprecated. */
  deprecateBelow: 0.1,
  deprecateAfterDays: 30,
  /** Added when a run that used the learning succeeds. */
  reinforce: 0.05,
  /** Added when an admin verifies it. */
  verify: 0.15,
  /** What an admin's disproof sets it to. */
  disproved: 0.05,
} as const

/** A learning's importance `days` after it was `importance`: decayed, never below the floor. */
export function decayed(importance: number, days: number): number {
  if (importance <= DECAY.floor) return importance
  return Math.max(DECAY.floor, importance * Math.pow(1 - DECAY.ratePerDay, Math.max(0, days)))
}

/** Days between two ISO times (fractional). */
export function daysBetween(from: string, to: Date): number {
  return (to.getTime() - Date.parse(from)) / DAY_MS
}

/** Whether the daily sweep deprecates a learning: old enough and decayed below the threshold. */
export function isDeprecated(current: number, ageDays: number): boolean {
  return ageDays >= DECAY.deprecateAfterDays && current < DECAY.deprecateBelow
}
