import { execFile } from 'node:child_process'
import { BundleError } from './bundle-error.js'

const TIMEOUT_MS = 5 * 60_000

/**
 * Run the system git without a shell. It never prompts (a missing credential fails at once),
 * transports that run commands (`ext::`) are off, and it follows no HTTP redirect unless told to
 * (then only on the first request, git's default), whatever the user's git config says.
 */
export function runGit(args: readonly string[], cwd: string, options: { followRedirects?: boolean } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      [
        '-c',
        'protocol.ext.allow=never',
        '-c',
        `http.followRedirects=${options.followRedirects ? 'initial' : 'false'}`,
        '-c',
        'advice.detachedHead=false',
        ...args,
      ],
      {
        cwd,
        timeout: TIMEOUT_MS,
        maxBuffer: 16 * 1024 * 1024,
        env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: '', SSH_ASKPASS: '', LC_ALL: 'C' },
      },
      (error, stdout, stderr) => {
        if (!error) return resolve(stdout.trim())
        const code = (error as NodeJS.ErrnoException).code
        if (code === 'ENOENT') return reject(new BundleError('git is not installed (or not on PATH): git sources need it'))
        const said = stderr.trim().split('\n').filter(Boolean).slice(-3).join(' / ')
        // The server redirected git itself (what it told skillplane's first look was different).
        if (/returned error: 3\d\d/.test(said))
          return reject(
            new BundleError(
              `git ${args[0]} failed: the server redirected git, which installs don't follow unless an admin allows it (--allow-redirects, allowRedirects: true over HTTP): ${said}`,
            ),
          )
        reject(new BundleError(`git ${args[0]} failed${error.killed ? ` (stopped after ${TIMEOUT_MS / 1000} s)` : ''}: ${said || error.message}`))
      },
    )
  })
}
