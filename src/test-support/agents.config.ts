import { defineConfig, defineSkill } from 'skillplane'
import { z } from 'zod'

// The config the agent-run CLI tests use: Helper talks to a fake OpenAI-compatible endpoint.
export default defineConfig({
  agents: [
    {
      name: 'Helper',
      model: {
        provider: 'openai-compatible',
        model: 'fake-model',
        baseURL: process.env.SKILLPLANE_TEST_PROVIDER_URL ?? 'http://127.0.0.1:9/v1',
        apiKeyEnv: 'SKILLPLANE_TEST_PROVIDER_KEY',
      },
      systemPrompt: 'You help.',
    },
  ],
  skills: [
    defineSkill({
      key: 'echo',
      description: 'Return the message',
      class: 'safe',
      agents: ['Helper'],
      input: z.object({ message: z.string().min(1) }),
      run: ({ message }) => ({ message }),
    }),
  ],
})
