/**
 * The adversarial suite's knobs: CI runs each attack a bounded number of times with a fixed seed;
 * SKILLPLANE_CAMPAIGN=<factor> runs every attack that many times longer (and, for the fuzzers, from
 * a random seed unless SKILLPLANE_CAMPAIGN_SEED fixes one).
 */
const factor = Math.max(1, Number(process.env.SKILLPLANE_CAMPAIGN ?? 1) || 1)

/** How many rounds an attack runs: `base` in CI, more in a longer campaign. */
export function rounds(base: number): number {
  return Math.round(base * factor)
}

/** The fuzzers' seed: fixed in CI so a failure reproduces; printed so a longer run's does too. */
export const seed = process.env.SKILLPLANE_CAMPAIGN_SEED ? Number(process.env.SKILLPLANE_CAMPAIGN_SEED) : factor > 1 ? Date.now() % 2 ** 31 : 20261124
