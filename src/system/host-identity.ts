import { readFileSync, readlinkSync } from 'node:fs'
import { hostname } from 'node:os'

/**
 * Managers with the same identity share a kernel boot and a PID namespace, so one can ask whether
 * the other's process still exists. Containers sharing a hostname differ in the namespace.
 */
export function hostIdentity(): string {
  try {
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()
    return `${hostname()}/${boot}/${readlinkSync('/proc/self/ns/pid')}`
  } catch {
    return hostname()
  }
}
