import { Chip } from './chips'

const TONE = { ALWAYS: 'good', ASK: 'warn', DENY: 'bad' } as const

/** ALWAYS / ASK / DENY in the colours the policy pages use throughout. */
export function DecisionChip({ value, title }: { value: keyof typeof TONE; title?: string }) {
  return (
    <Chip tone={TONE[value]} title={title}>
      {value}
    </Chip>
  )
}
