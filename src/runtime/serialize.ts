/** JSON of what make() returns, or undefined when making or serialising it throws. */
export function serialize(make: () => unknown): string | undefined {
  try {
    return JSON.stringify(make())
  } catch {
    return undefined
  }
}
