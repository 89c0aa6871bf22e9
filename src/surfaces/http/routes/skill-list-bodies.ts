// Listings kept: one per caller and query, the oldest dropped first.
const KEPT = 32

/**
 * `GET /api/skills` bodies, kept per caller and query until something a listing shows changes:
 * skills, the catalog, bindings or connections (the plane's skills version), or what skills
 * compute when asked, their availability and connection state (the listing's fingerprint).
 * Serialising 10,000 summaries was most of a listing's time, and nearly every listing repeats the last.
 */
export class SkillListBodies {
  readonly #kept = new Map<string, { version: number; fingerprint: string; body: Uint8Array<ArrayBuffer> }>()

  body(key: string, version: number, fingerprint: string, render: () => unknown): Uint8Array<ArrayBuffer> {
    const kept = this.#kept.get(key)
    if (kept && kept.version === version && kept.fingerprint === fingerprint) return kept.body
    const body = Buffer.from(JSON.stringify(render()))
    this.#kept.delete(key)
    this.#kept.set(key, { version, fingerprint, body })
    if (this.#kept.size > KEPT) this.#kept.delete(this.#kept.keys().next().value!)
    return body
  }
}
