import { BundleError } from './bundle-error.js'
import { discoverSkills } from './discover-skills.js'
import { fetchSource, type FetchedSource } from './fetch-source.js'
import type { ArchiveLimits } from './extract-archive.js'
import { planInstall, type InstallPlan } from './install-plan.js'
import type { InstallTarget } from './install-target.js'
import { lockedSource } from './lock-source.js'
import type { NetworkAccess } from './network-access.js'
import { readLockfile, type LockEntry } from './lockfile.js'

/** The lockfile's skills fetched again from their sources, at their refs, planned against what is installed. */
export interface LockedPlan<R = never> {
  /** One plan per source (and ref). */
  plans: InstallPlan<R>[]
  /** Locked skills that could not be planned, and why. */
  problems: Array<{ name: string; message: string }>
  /** Remove the fetched sources. */
  dispose(): void
}

export interface LockedPlanOptions<R> extends NetworkAccess {
  /** Only these skills (default: every skill in the lockfile); a name not in it is an error. */
  names?: readonly string[]
  scan?: (dir: string) => Promise<R[]>
  limits?: Partial<ArchiveLimits>
}

/**
 * Fetch each source the lockfile names once (skills from one source and ref share a fetch), and
 * find each skill again by its skillPath, else by its name.
 */
export async function planLocked<R = never>(target: InstallTarget, options: LockedPlanOptions<R> = {}): Promise<LockedPlan<R>> {
  const lock = readLockfile(target.lockfile)
  const names = options.names && options.names.length > 0 ? [...new Set(options.names)] : Object.keys(lock.skills).sort()
  const unknown = names.filter((name) => !Object.hasOwn(lock.skills, name))
  if (unknown.length > 0) {
    const have = Object.keys(lock.skills).sort()
    throw new BundleError(
      `${unknown.map((n) => `"${n}"`).join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not in ${target.lockfile} (${have.length > 0 ? `it has: ${have.join(', ')}` : 'it has no skills'})`,
    )
  }
  const groups = new Map<string, Array<[string, LockEntry]>>()
  for (const name of names) {
    const entry = lock.skills[name]!
    const key = JSON.stringify([entry.sourceType, entry.source, entry.ref ?? null])
    groups.set(key, [...(groups.get(key) ?? []), [name, entry]])
  }
  const fetchedAll: FetchedSource[] = []
  const plans: InstallPlan<R>[] = []
  const problems: LockedPlan['problems'] = []
  const dispose = () => fetchedAll.forEach((f) => f.dispose())
  try {
    for (const entries of groups.values()) {
      const [firstName, first] = entries[0]!
      let fetched: FetchedSource
      try {
        fetched = await fetchSource(lockedSource(firstName, first, target.lockfile), {
          limits: options.limits,
          allowLoopback: options.allowLoopback,
          allowRedirects: options.allowRedirects,
        })
      } catch (error) {
        for (const [name] of entries) problems.push({ name, message: (error as Error).message })
        continue
      }
      fetchedAll.push(fetched)
      const found = discoverSkills(fetched.root, fetched.base).skills
      const select: string[] = []
      for (const [name, entry] of entries) {
        const atPath = entry.skillPath === undefined ? undefined : found.find((s) => s.skillPath === entry.skillPath)
        if (atPath && atPath.name !== name) {
          problems.push({
            name,
            message: `the skill at ${entry.skillPath} in ${entry.source} is now named "${atPath.name}": remove "${name}" and add it again`,
          })
        } else if (atPath || found.some((s) => s.name === name)) select.push(name)
        else
          problems.push({
            name,
            message: `${entry.source}${entry.ref ? ` at ${entry.ref}` : ''} no longer holds it${entry.skillPath ? ` (at ${entry.skillPath})` : ''}`,
          })
      }
      if (select.length === 0) continue
      plans.push(
        await planInstall(fetched, {
          target,
          select,
          lockSource: { source: first.source, ...(first.ref !== undefined && { ref: first.ref }) },
          scan: options.scan,
        }),
      )
    }
  } catch (error) {
    dispose()
    throw error
  }
  return { plans, problems, dispose }
}

/** The planned skills whose files don't hash to what the lockfile pins: a frozen install refuses them. */
export function frozenMismatches(target: InstallTarget, locked: LockedPlan<unknown>): Array<{ name: string; locked: string; fetched: string }> {
  const lock = readLockfile(target.lockfile)
  return locked.plans
    .flatMap((plan) => plan.skills)
    .filter((skill) => lock.skills[skill.name]?.computedHash !== skill.computedHash)
    .map((skill) => ({ name: skill.name, locked: lock.skills[skill.name]?.computedHash ?? '(none)', fetched: skill.computedHash }))
}
