import type { Actor, AuditEvents } from '../audit/index.js'
import type { Catalog } from '../registry/index.js'
import type { Finding } from '../sources/agent-skills/index.js'
import { applyPlan } from './apply-plan.js'
import { BundleError } from './bundle-error.js'
import { fetchSource } from './fetch-source.js'
import type { FileDiff } from './hash-skill-folder.js'
import { planInstall, type InstallPlan } from './install-plan.js'
import type { InstallTarget } from './install-target.js'
import type { NetworkAccess } from './network-access.js'
import type { ParsedSource } from './parse-source.js'
import { risksNeedingAcceptance, scanRisks, type RiskFinding } from './scan-risks.js'
import { rollbackSkill } from './skill-versions.js'
import { dropUpload, keepUpload, pruneUploads, uploadSource, type ReceivedUpload } from './upload-store.js'
import { installSource, recordInstalls, type InstallRecordOptions, type InstallSource } from './record-installs.js'

/** Install skills from a source into the data dir (over HTTP: a network source or an upload). */
export interface InstallRequest {
  /** Where to fetch from; or an upload as received (the request's own file, kept only if installed). */
  from: { source: ParsedSource } | { upload: ReceivedUpload; filename: string }
  /** Skill names to install (default: all the source holds). */
  skills?: readonly string[]
  /** Plan only: fetch, validate and scan, and install nothing. */
  dryRun?: boolean
  /** The admin read the high-risk findings and installs anyway. */
  acceptRisk?: boolean
  /** What the admin allows fetching a network source: loopback hosts, git redirects to another origin. */
  access?: NetworkAccess
}

/** What an install would do or did, skill by skill, as an admin reviews it. */
export interface InstallReport {
  dryRun: boolean
  applied: boolean
  source: InstallSource
  upload: { filename: string; sha256: string; bytes: number } | null
  available: Array<{ name: string; description: string; skillPath: string }>
  skills: Array<{
    name: string
    description: string
    skillPath: string
    change: 'new' | 'update' | 'unchanged'
    diff: FileDiff | null
    computedHash: string
    /** Path → SHA-256 of each file, those copied from symlinks included. */
    files: Record<string, string>
    /** Path → target of each symlink in the source, installed as a copy of what it points at. */
    links: Record<string, string>
    findings: Finding[]
    risks: RiskFinding[]
    /** Risks at a level that needs acceptRisk. */
    needsAcceptance: boolean
  }>
  findings: Finding[]
  installed: string[]
  unchanged: string[]
}

export type InstallOutcome =
  { ok: true; report: InstallReport } | { ok: false; code: 'invalid_input' | 'conflict' | 'not_found'; message: string; report?: InstallReport }

export type RollbackOutcome =
  | { ok: true; name: string; restored: { computedHash: string; source: string }; replaced: { computedHash: string; source: string } | null }
  | { ok: false; code: 'not_found' | 'tampered'; message: string }

/** What an install is recorded with once its files are in place. */
export interface InstallRecorder {
  catalog: Pick<Catalog, 'setRisks'>
  events: Pick<AuditEvents, 'record'>
  /** Load the installed skills again and sync the catalog. */
  reload(): Promise<void>
}

export interface SkillInstallerDeps {
  target: InstallTarget
  now(): string
  /**
   * Run `work` with a recorder once skills changed on disk (`names`: those installed or rolled
   * back): the plane's own, or (the CLI) a plane opened only then, so it loads them as they are now.
   */
  settle(names: readonly string[], work: (recorder: InstallRecorder) => Promise<void>): Promise<void>
}

/** How reviewed plans are applied: what the audit records beside the hashes, and whether the lockfile is written. */
export interface ApplyInstallOptions extends InstallRecordOptions {
  /** Record the skills in the lockfile (default true); a frozen install leaves it as it is. */
  writeLock?: boolean
}

/**
 * The one way skills get installed, from HTTP and the CLI alike: installs, uploads and rollbacks,
 * one at a time per plane (they share the lockfile and the folders). Each installed skill is
 * loaded, its risks kept on its catalog row, and audited as `skill.installed` with its hashes.
 */
export class SkillInstaller {
  #queue: Promise<unknown> = Promise.resolve()

  constructor(private readonly deps: SkillInstallerDeps) {}

  install(request: InstallRequest, by: Actor): Promise<InstallOutcome> {
    return this.#serial(() => this.#install(request, by))
  }

  /**
   * Apply plans a person reviewed (the CLI's `skills add`, `update`, `install`, into the data dir or
   * the project), then settle: the skills installed. What was installed before a plan failed is still loaded and audited.
   */
  apply(plans: ReadonlyArray<InstallPlan<RiskFinding>>, by: Actor, options: ApplyInstallOptions = {}): Promise<string[]> {
    return this.#serial(() => this.#apply(plans, by, options))
  }

  rollback(name: string, by: Actor): Promise<RollbackOutcome> {
    return this.#serial(async () => {
      let result: ReturnType<typeof rollbackSkill>
      try {
        result = rollbackSkill(this.deps.target, name, this.deps.now())
      } catch (error) {
        if (!(error instanceof BundleError)) throw error
        return { ok: false, code: error.name === 'IntegrityError' ? 'tampered' : 'not_found', message: error.message }
      }
      pruneUploads(this.deps.target)
      const brief = (entry: { computedHash: string; source: string }) => ({ computedHash: entry.computedHash, source: entry.source })
      await this.deps.settle([name], async ({ reload, events }) => {
        await reload()
        await events.record('skill.rolled_back', `skill:${name}`, by, {
          restored: brief(result.restored),
          replaced: result.replaced && brief(result.replaced),
        })
      })
      return { ok: true, name, restored: brief(result.restored), replaced: result.replaced && brief(result.replaced) }
    })
  }

  #serial<T>(run: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(run, run)
    this.#queue = next.catch(() => undefined)
    return next
  }

  async #install(request: InstallRequest, by: Actor): Promise<InstallOutcome> {
    try {
      return await this.#installFrom(request, by)
    } finally {
      if ('upload' in request.from) {
        dropUpload(request.from.upload)
        // A bundle no lockfile entry names any more (an update replaced it twice over) is not kept.
        pruneUploads(this.deps.target)
      }
    }
  }

  async #installFrom(request: InstallRequest, by: Actor): Promise<InstallOutcome> {
    const { target } = this.deps
    const { from } = request
    const upload = 'upload' in from ? from.upload : null
    const source: ParsedSource = upload
      ? { kind: 'archive-file', location: upload.file, ref: null, subpath: null, source: uploadSource(target, upload.stored), sourceType: 'archive' }
      : (from as { source: ParsedSource }).source
    let fetched
    try {
      fetched = await fetchSource(source, request.access)
    } catch (error) {
      if (error instanceof BundleError) return { ok: false, code: 'invalid_input', message: error.message }
      throw error
    }
    try {
      let plan
      try {
        plan = await planInstall(fetched, {
          target,
          select: request.skills ?? [],
          scan: scanRisks,
        })
      } catch (error) {
        if (error instanceof BundleError) return { ok: false, code: 'invalid_input', message: error.message }
        throw error
      }
      const report: InstallReport = {
        dryRun: request.dryRun ?? false,
        applied: false,
        source: installSource(fetched),
        upload: upload && { filename: (from as { filename: string }).filename, sha256: upload.sha256, bytes: upload.bytes },
        available: plan.available,
        skills: plan.skills.map((s) => ({
          name: s.name,
          description: s.description,
          skillPath: s.skillPath,
          change: s.change,
          diff: s.diff,
          computedHash: s.computedHash,
          files: s.files,
          links: s.links,
          findings: s.findings,
          risks: s.risks,
          needsAcceptance: s.change !== 'unchanged' && risksNeedingAcceptance(s.risks).length > 0,
        })),
        findings: plan.findings,
        installed: [],
        unchanged: plan.skills.filter((s) => s.change === 'unchanged').map((s) => s.name),
      }
      if (plan.skills.length === 0)
        return { ok: false, code: 'invalid_input', message: `${fetched.source.source} holds no skill that can be installed`, report }
      if (report.dryRun) return { ok: true, report }
      const risky = report.skills.filter((s) => s.needsAcceptance)
      if (risky.length > 0 && !request.acceptRisk)
        return {
          ok: false,
          code: 'conflict',
          message: `${risky.map((s) => s.name).join(', ')} ${risky.length === 1 ? 'has' : 'have'} high-risk findings (in the report): nothing was installed; read them, then send again with acceptRisk: true`,
          report,
        }
      if (upload) keepUpload(upload)
      try {
        report.installed = await this.#apply([plan], by, { upload: report.upload, acceptRisk: request.acceptRisk, access: request.access })
      } catch (error) {
        if (error instanceof BundleError) return { ok: false, code: 'conflict', message: error.message, report }
        throw error
      }
      report.applied = true
      return { ok: true, report }
    } finally {
      fetched.dispose()
    }
  }

  async #apply(plans: ReadonlyArray<InstallPlan<RiskFinding>>, by: Actor, options: ApplyInstallOptions): Promise<string[]> {
    const installed: string[] = []
    const applied: Array<InstallPlan<RiskFinding>> = []
    try {
      for (const plan of plans) {
        installed.push(...applyPlan(plan, { now: this.deps.now, writeLock: options.writeLock }).installed)
        applied.push(plan)
      }
    } finally {
      if (applied.length > 0)
        await this.deps.settle(installed, async ({ reload, catalog, events }) => {
          await reload()
          for (const plan of applied) {
            // Kept on the catalog row, for the console and `skills show`.
            for (const skill of plan.skills) await catalog.setRisks(skill.name, skill.risks, this.deps.now())
            await recordInstalls(events, plan, installed, by, options)
          }
        })
    }
    return installed
  }
}
