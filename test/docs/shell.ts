import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { randomUUID } from 'node:crypto'

/** One bash session that runs examples in turn, so variables one example sets reach the next, as in a reader's terminal. */
export class Shell {
  readonly #bash: ChildProcessWithoutNullStreams
  #stdout = ''
  #stderr = ''

  constructor(cwd: string, env: Record<string, string>) {
    this.#bash = spawn('bash', ['--noprofile', '--norc'], { cwd, env: { ...process.env, ...env } })
    this.#bash.stdout.setEncoding('utf8').on('data', (chunk: string) => (this.#stdout += chunk))
    this.#bash.stderr.setEncoding('utf8').on('data', (chunk: string) => (this.#stderr += chunk))
  }

  /** Run a script in this shell (its variables kept) and return what it printed; any failing command fails it. */
  async run(script: string, timeoutMs = 60_000): Promise<{ code: number; stdout: string; stderr: string }> {
    const marker = `__done_${randomUUID()}__`
    this.#stdout = ''
    this.#stderr = ''
    // pipefail, and stop at the first failing command, as a reader would; the exit code follows the marker.
    // The first failing command's status, not just the last one's: an ERR trap records it.
    this.#bash.stdin.write(`set -o pipefail\n__rc=0\ntrap '__s=$?; [ $__rc -eq 0 ] && __rc=$__s' ERR\n{\n${script}\n}\ntrap - ERR\necho "${marker}$__rc"\n`)
    const deadline = Date.now() + timeoutMs
    while (!this.#stdout.includes(marker)) {
      if (Date.now() > deadline) throw new Error(`no end of: ${script}\n${this.#stdout}\n${this.#stderr}`)
      await new Promise((r) => setTimeout(r, 20))
    }
    const at = this.#stdout.indexOf(marker)
    const code = Number(/^\d+/.exec(this.#stdout.slice(at + marker.length))?.[0] ?? 1)
    return { code, stdout: this.#stdout.slice(0, at), stderr: this.#stderr }
  }

  close(): void {
    this.#bash.kill('SIGKILL')
  }
}
