#!/usr/bin/env node
import { CommanderError } from 'commander'
import { createProgram } from './program.js'

try {
  await createProgram().exitOverride().parseAsync(process.argv)
} catch (error) {
  if (error instanceof CommanderError) {
    // Commander already printed its message (or the help/version text).
    process.exitCode = error.exitCode
  } else {
    process.stderr.write(`skillplane: ${(error as Error).message ?? String(error)}\n`)
    process.exitCode = (error as { exitCode?: number }).exitCode ?? 1
  }
}
