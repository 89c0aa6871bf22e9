import { SkillplaneError } from '../../errors/index.js'

/** Anything wrong with a skill bundle: its source, fetching it, its archive, the lockfile or the installed files. */
export class BundleError extends SkillplaneError {
  override readonly code = 'invalid_input'
  override name = 'BundleError'
}

/** A SOURCE argument that names nothing skillplane can fetch. */
export class SourceError extends BundleError {
  override name = 'SourceError'
}

/** An archive refused while reading it; `entry` names the offending member (null: the archive as a whole). */
export class ArchiveError extends BundleError {
  override name = 'ArchiveError'
  constructor(
    readonly entry: string | null,
    readonly reason: string,
  ) {
    super(entry === null ? `archive refused: ${reason}` : `archive entry "${entry}" refused: ${reason}`)
  }
}

/** A skills-lock.json that can't be read or doesn't have the lockfile's shape. */
export class LockfileError extends BundleError {
  override name = 'LockfileError'
}

/** Fetched or installed files that don't hash to what the lockfile pins; `skill` names the skill. */
export class IntegrityError extends BundleError {
  override name = 'IntegrityError'
  constructor(
    readonly skill: string,
    message: string,
  ) {
    super(message)
  }
}
