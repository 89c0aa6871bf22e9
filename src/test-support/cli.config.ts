import { defineConfig, defineSkill } from 'skillplane'
import { z } from 'zod'

// The config the CLI tests run the real `skillplane` binary with.
export default defineConfig({
  agents: [{ name: 'Helper', aliases: ['helper'] }],
  approvals: { expiresAfterMs: 1_500 },
  skills: [
    defineSkill({
      key: 'echo',
      description: 'Return the message',
      class: 'safe',
      tags: ['greeting'],
      agents: ['Helper', 'Nobody Known'],
      input: z.object({ message: z.string().min(1) }),
      run: ({ message }) => ({ message }),
    }),
    defineSkill({
      key: 'slow',
      description: 'Sleep for ms milliseconds',
      class: 'safe',
      input: z.object({ ms: z.number().int().min(0) }),
      run: ({ ms }) => new Promise((resolve) => setTimeout(() => resolve({ slept: ms }), ms)),
    }),
    defineSkill({
      key: 'set_flag',
      description: 'Set a flag',
      class: 'mutating',
      input: z.object({ on: z.boolean() }),
      run: ({ on }) => ({ on }),
    }),
  ],
})
