import type { Caller } from '../skill/index.js'
import { didYouMean } from '../text/index.js'
import { canSee, type BindingView } from './can-see.js'

// Longer than any key by more than a typo: nothing to suggest, and no reason to compare.
const LONGEST_TYPO = 80

/**
 * ` (did you mean "x"?)` for a mistyped skill key, naming only a skill this caller may see: a
 * hidden skill answers like an unknown key, so its name must not surface in a suggestion either.
 */
export function suggestKey(
  key: string,
  skills: Iterable<{ key: string }>,
  caller: Caller,
  catalog: Pick<BindingView, 'isBound' | 'sharing'>,
  agentId: string | null = caller.kind === 'agent' ? caller.agentId : null,
): string {
  if (key.length > LONGEST_TYPO) return ''
  return didYouMean(key, visibleKeys(skills, caller, catalog, agentId))
}

function* visibleKeys(skills: Iterable<{ key: string }>, caller: Caller, catalog: Pick<BindingView, 'isBound' | 'sharing'>, agentId: string | null) {
  for (const skill of skills) if (canSee(caller, skill, catalog, agentId)) yield skill.key
}
