import { generateSigningKeys, signDocument } from '../policy/sop/sop-signature.js'

export interface TestSop {
  document: string
  signature: string
}

/** A signing key pair and a helper that writes and signs SOP documents with it. */
export function sopSigner(name = 'ops-lead') {
  const keys = generateSigningKeys()
  return {
    config: { name, publicKey: keys.publicKey },
    privateKey: keys.privateKey,
    sop(options: { id: string; skills: string[]; constraints?: Record<string, unknown>; body?: string }): TestSop {
      const constraints = options.constraints ? `constraints: ${JSON.stringify(options.constraints)}\n` : ''
      const document =
        `---\nid: ${options.id}\ntitle: Procedure ${options.id}\nskills: [${options.skills.join(', ')}]\n${constraints}---\n` +
        (options.body ?? '# Steps\n\n1. Check the backup is recent.\n2. Run the skill.\n')
      return { document, signature: JSON.stringify(signDocument(document, keys.privateKey)) }
    },
  }
}
