const MAX_CONVERSATIONS = 10_000
const TTL_MS = 60 * 60 * 1000

interface Conversation {
  offers: Array<{ query: string; keys: Set<string>; taught: Set<string> }>
  last: string | null
  at: number
}

/**
 * Recent conversations on this manager: the discoveries made in each and the last skill called,
 * bounded in number and age (a conversation idle for an hour is forgotten).
 */
export class ConversationLog {
  readonly #conversations = new Map<string, Conversation>()

  offer(conversationId: string, query: string, keys: string[], now: number): void {
    const conversation = this.#touch(conversationId, now)
    conversation.offers.push({ query, keys: new Set(keys), taught: new Set() })
    if (conversation.offers.length > 20) conversation.offers.shift()
  }

  /** A skill was called: the requests it was offered for (each once), and the skill called before it. */
  called(conversationId: string, key: string, now: number): { queries: string[]; previous: string | null } {
    const conversation = this.#touch(conversationId, now)
    const queries: string[] = []
    for (const offer of conversation.offers) {
      if (!offer.keys.has(key) || offer.taught.has(key)) continue
      offer.taught.add(key)
      queries.push(offer.query)
    }
    const previous = conversation.last
    conversation.last = key
    return { queries, previous }
  }

  #touch(conversationId: string, now: number): Conversation {
    let conversation = this.#conversations.get(conversationId)
    if (conversation && now - conversation.at > TTL_MS) conversation = undefined
    this.#conversations.delete(conversationId)
    conversation ??= { offers: [], last: null, at: now }
    conversation.at = now
    this.#conversations.set(conversationId, conversation)
    // Maps iterate in insertion order, so the first key is the one idle longest.
    if (this.#conversations.size > MAX_CONVERSATIONS) this.#conversations.delete(this.#conversations.keys().next().value!)
    return conversation
  }
}
