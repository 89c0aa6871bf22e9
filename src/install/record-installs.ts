import type { Actor, AuditEvents } from '../audit/index.js'
import type { FetchedSource } from './fetch-source.js'
import type { InstallPlan } from './install-plan.js'
import type { NetworkAccess } from './network-access.js'
import { risksNeedingAcceptance, type RiskFinding } from './scan-risks.js'

/** Where an install fetched its skills from, as its report and its events name it. */
export interface InstallSource {
  source: string
  sourceType: string
  ref: string | null
  commit: string | null
  archiveSha256: string | null
  bytes: number | null
}

export function installSource(fetched: FetchedSource): InstallSource {
  return {
    source: fetched.source.source,
    sourceType: fetched.source.sourceType,
    ref: fetched.source.ref,
    commit: fetched.commit,
    archiveSha256: fetched.archive?.sha256 ?? null,
    bytes: fetched.archive?.bytes ?? null,
  }
}

export interface InstallRecordOptions {
  /** The uploaded bundle the skills came from (null for a fetched source). */
  upload?: { filename: string; sha256: string; bytes: number } | null
  /** The admin read the high-risk findings and installed anyway. */
  acceptRisk?: boolean
  /** What the admin allowed the fetch beyond the defaults. */
  access?: NetworkAccess
}

/**
 * Audit each skill of the plan that was installed as `skill.installed`, with the hashes it
 * installed: every install, from the API or the CLI, records the same event.
 */
export async function recordInstalls(
  events: Pick<AuditEvents, 'record'>,
  plan: InstallPlan<RiskFinding>,
  installed: readonly string[],
  by: Actor,
  options: InstallRecordOptions = {},
): Promise<void> {
  const source = installSource(plan.fetched)
  for (const skill of plan.skills) {
    if (!installed.includes(skill.name)) continue
    await events.record('skill.installed', `skill:${skill.name}`, by, {
      ...source,
      upload: options.upload ?? null,
      skillPath: skill.skillPath,
      computedHash: skill.computedHash,
      files: skill.files,
      replaced: skill.replaces?.computedHash ?? null,
      risks: skill.risks.map((r) => ({ level: r.level, rule: r.rule, file: r.file })),
      acceptedRisk: options.acceptRisk === true && risksNeedingAcceptance(skill.risks).length > 0,
      // What the admin allowed the fetch beyond the defaults, for whoever reviews the install.
      ...(options.access?.allowLoopback && { allowedLoopback: true }),
      ...(options.access?.allowRedirects && { allowedRedirects: true }),
    })
  }
}
