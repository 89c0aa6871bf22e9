import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto'
import { z } from 'zod'

/** What `skillplane sop sign` writes next to the SOP (FILE.sig). */
export interface SopSignature {
  algorithm: 'ed25519'
  /** Fingerprint of the signing key's public half. */
  key: string
  /** Base64 Ed25519 signature over the exact document bytes. */
  signature: string
}

const signatureSchema = z.strictObject({
  algorithm: z.literal('ed25519'),
  key: z.string().regex(/^[0-9a-f]{16}$/, 'a key id: 16 hexadecimal digits (0-9, a-f)'),
  signature: z.string().min(1),
})

export function generateSigningKeys(): { publicKey: string; privateKey: string } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519')
  return {
    publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  }
}

/** Short stable id of a public key: the first 16 hex digits of SHA-256 over its DER form. */
export function keyFingerprint(key: KeyObject): string {
  return createHash('sha256')
    .update(key.export({ type: 'spki', format: 'der' }))
    .digest('hex')
    .slice(0, 16)
}

export function loadPublicKey(pem: string): KeyObject {
  const key = createPublicKey(pem)
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`expected an Ed25519 public key, got ${key.asymmetricKeyType}`)
  return key
}

export function signDocument(document: string, privateKeyPem: string): SopSignature {
  const privateKey = createPrivateKey(privateKeyPem)
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error(`expected an Ed25519 private key, got ${privateKey.asymmetricKeyType}`)
  return {
    algorithm: 'ed25519',
    key: keyFingerprint(createPublicKey(privateKey)),
    signature: sign(null, Buffer.from(document), privateKey).toString('base64'),
  }
}

export function parseSignature(text: string): SopSignature | string {
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch {
    return 'the signature file is not JSON'
  }
  const parsed = signatureSchema.safeParse(data)
  return parsed.success ? parsed.data : `the signature file is malformed: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`
}

export function verifyDocument(document: string, signature: SopSignature, publicKey: KeyObject): boolean {
  try {
    return verify(null, Buffer.from(document), publicKey, Buffer.from(signature.signature, 'base64'))
  } catch {
    return false
  }
}
