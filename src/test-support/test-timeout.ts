/**
 * How long a test or hook may take before it counts as hung. Tests wait for the conditions they
 * need, never a fixed time; this only stops a hung one, so it is generous enough for a 2-core
 * machine under heavy load, where a spawned CLI can take several seconds.
 */
export const TEST_TIMEOUT_MS = 300_000
