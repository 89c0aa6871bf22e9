import type { ReactNode } from 'react'

/** A small labelled badge; `tone` picks its colour by meaning. */
export function Chip({ tone = 'plain', title, children }: { tone?: 'plain' | 'good' | 'warn' | 'bad' | 'info'; title?: string; children: ReactNode }) {
  return (
    <span className={`chip chip-${tone}`} title={title}>
      {children}
    </span>
  )
}

const CLASS_TONE = { safe: 'good', mutating: 'warn', dangerous: 'bad' } as const

export function ClassChip({ value }: { value: string }) {
  return <Chip tone={CLASS_TONE[value as keyof typeof CLASS_TONE] ?? 'plain'}>{value}</Chip>
}

const STATUS_TONE: Record<string, 'good' | 'warn' | 'bad' | 'info' | 'plain'> = {
  ok: 'good',
  approved: 'good',
  executed: 'good',
  completed: 'good',
  accepted: 'good',
  running: 'info',
  pending: 'info',
  approval_required: 'warn',
  waiting_approval: 'warn',
  awaiting_approval: 'warn',
  interrupted: 'warn',
  expired: 'warn',
  declined: 'warn',
  cancelled: 'warn',
  error: 'bad',
  denied: 'bad',
  timeout: 'bad',
  rejected: 'bad',
  failed: 'bad',
}

/** How a status reads: good, warn, bad, info (in progress) or plain. */
export const statusTone = (status: string) => STATUS_TONE[status] ?? 'plain'

export function StatusChip({ value }: { value: string }) {
  return <Chip tone={statusTone(value)}>{value.replace(/_/g, ' ')}</Chip>
}
