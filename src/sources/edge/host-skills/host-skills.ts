import type { DefinedSkill } from '../../../skill/index.js'
import { hostLoad } from './host-load.js'
import { hostProcesses } from './host-processes.js'
import { probeDns } from './probe-dns.js'
import { probeHttp } from './probe-http.js'
import { probeTcp } from './probe-tcp.js'
import { readJournal } from './read-journal.js'
import { restartService } from './restart-service.js'
import { runCommand } from './run-command.js'
import { tailFile } from './tail-file.js'

export interface HostSkillOptions {
  /** Folders tail_file may read (after resolving symlinks); none leaves it unavailable. */
  allowRead: string[]
  /** Offer run_command, a shell on the host. */
  allowShell: boolean
}

/** The skills an edge offers out of the box; run_command only when the shell is allowed. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- skills with their own input schemas in one list (as config.skills takes them)
export function hostSkills(options: HostSkillOptions): DefinedSkill<any, any>[] {
  const skills = [probeHttp, probeDns, probeTcp, tailFile(options.allowRead), readJournal, hostLoad, hostProcesses, restartService]
  return options.allowShell ? [...skills, runCommand] : skills
}

/** Every built-in host skill's key, run_command included. */
export const HOST_SKILL_KEYS: readonly string[] = Object.freeze(hostSkills({ allowRead: [], allowShell: true }).map((skill) => skill.key))
