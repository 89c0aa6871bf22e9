import type { KeyObject } from 'node:crypto'
import type { SopRepository, SopRow } from '../../store/index.js'
import type { Actor, AuditEvents } from '../../audit/index.js'
import { compileSchema, describeIssues } from '../../skill/index.js'
import { parseSop, type SopDocument } from './parse-sop.js'
import { keyFingerprint, loadPublicKey, parseSignature, verifyDocument, type SopSignature } from './sop-signature.js'

export interface SopKeyConfig {
  name: string
  publicKey: string
}

export type Checked<T> = { ok: true; value: T } | { ok: false; message: string }

export interface SopInfo {
  id: string
  title: string
  skills: string[]
  hash: string
  keyName: string
  registeredBy: string
  registeredAt: string
  revokedAt: string | null
}

/** Signed procedures: verified against the public keys registered in the config. */
export class Sops {
  readonly #keys = new Map<string, { name: string; key: KeyObject }>()

  constructor(
    private readonly repo: SopRepository,
    keys: readonly SopKeyConfig[],
    private readonly events: AuditEvents,
  ) {
    for (const { name, publicKey } of keys) {
      const key = loadPublicKey(publicKey)
      this.#keys.set(keyFingerprint(key), { name, key })
    }
  }

  /** Parse the document and check its signature against a registered key. */
  verify(document: string, signatureText: string): Checked<{ sop: SopDocument; keyName: string; signature: SopSignature }> {
    const signature = parseSignature(signatureText)
    if (typeof signature === 'string') return { ok: false, message: signature }
    const signer = this.#keys.get(signature.key)
    if (!signer) return { ok: false, message: `signed by key ${signature.key}, which is not registered in the config (sopKeys)` }
    if (!verifyDocument(document, signature, signer.key)) {
      return { ok: false, message: `the signature does not verify with key "${signer.name}": the document was changed after it was signed` }
    }
    const parsed = parseSop(document)
    if (!parsed.ok) return { ok: false, message: `not a valid SOP: ${parsed.message}` }
    return { ok: true, value: { sop: parsed.sop, keyName: signer.name, signature } }
  }

  async register(document: string, signatureText: string, actor: Actor, now: string): Promise<Checked<SopInfo>> {
    const verified = this.verify(document, signatureText)
    if (!verified.ok) return verified
    const { sop, keyName, signature } = verified.value
    // Revocation is permanent for this content, even after another revision replaced its row.
    const revokedAt = await this.repo.revokedAt(sop.hash)
    if (revokedAt) {
      return { ok: false, message: `SOP "${sop.id}" with this content was revoked at ${revokedAt}: sign a new revision to use it again` }
    }
    const row: SopRow = {
      id: sop.id,
      title: sop.title,
      skills: JSON.stringify(sop.skills),
      document,
      hash: sop.hash,
      signature: JSON.stringify(signature),
      key_name: keyName,
      registered_by: actor.name,
      registered_at: now,
      revoked_at: null,
    }
    await this.repo.upsert(row)
    await this.events.record('sop.registered', `sop:${sop.id}`, actor, { hash: sop.hash, skills: sop.skills, key: keyName })
    return { ok: true, value: toInfo(row) }
  }

  async list(): Promise<SopInfo[]> {
    return (await this.repo.list()).map(toInfo)
  }

  async revoke(id: string, actor: Actor, now: string): Promise<boolean> {
    const revoked = await this.repo.revoke(id, now)
    if (revoked) await this.events.record('sop.revoked', `sop:${id}`, actor, {})
    return revoked
  }

  /**
   * Whether an approval may cite this SOP for this call: registered, not revoked, its signature
   * still verifying with a key the config still trusts, covering the skill, its constraints met.
   */
  async checkCitation(sopId: string, skill: string, input: unknown): Promise<Checked<{ id: string; hash: string }>> {
    const row = await this.repo.get(sopId)
    if (!row) return { ok: false, message: `no registered SOP "${sopId}"` }
    if (row.revoked_at) return { ok: false, message: `SOP "${sopId}" was revoked at ${row.revoked_at}` }
    const verified = this.verify(row.document, row.signature)
    if (!verified.ok) return { ok: false, message: `SOP "${sopId}" no longer verifies: ${verified.message}` }
    const { sop } = verified.value
    if (sop.hash !== row.hash) return { ok: false, message: `SOP "${sopId}" does not match its registered hash` }
    const revokedAt = await this.repo.revokedAt(sop.hash)
    if (revokedAt) return { ok: false, message: `SOP "${sopId}" was revoked at ${revokedAt}` }
    if (!sop.skills.includes(skill)) return { ok: false, message: `SOP "${sopId}" does not cover skill "${skill}" (it covers ${sop.skills.join(', ')})` }
    const constraint = sop.constraints[skill]
    if (constraint) {
      const checked = compileSchema(constraint, 'input', `SOP "${sopId}" constraints for ${skill}`).validate(input)
      if (!checked.ok) return { ok: false, message: describeIssues(`the call is outside SOP "${sopId}"`, checked.issues) }
    }
    return { ok: true, value: { id: sop.id, hash: sop.hash } }
  }
}

function toInfo(row: SopRow): SopInfo {
  return {
    id: row.id,
    title: row.title,
    skills: JSON.parse(row.skills) as string[],
    hash: row.hash,
    keyName: row.key_name,
    registeredBy: row.registered_by,
    registeredAt: row.registered_at,
    revokedAt: row.revoked_at,
  }
}
