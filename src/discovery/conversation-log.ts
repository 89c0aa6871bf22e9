const MAX_CONVERSATIONS = 10_000
const MAX_OFFERS = 20
const TTL_MS = 60 * 60 * 1000

/** One discovery in a conversation: its request, who asked (T), what it returned, and the skills it has taught since. */
export interface Offer<T> {
  query: string
  asker: T
  returned: ReadonlySet<string>
  taught: Set<string>
}

interface Conversation<T> {
  offers: Array<Offer<T>>
  last: string | null
  at: number
}

/**
 * Recent conversations on this manager: the discoveries made in each (with who made them) and the
 * last skill called, bounded in number and age (a conversation idle for an hour is forgotten).
 */
export class ConversationLog<T> {
  readonly #conversations = new Map<string, Conversation<T>>()

  offer(conversationId: string, query: string, asker: T, returned: string[], now: number): void {
    const conversation = this.#touch(conversationId, now)
    conversation.offers.push({ query, asker, returned: new Set(returned), taught: new Set() })
    if (conversation.offers.length > MAX_OFFERS) conversation.offers.shift()
  }

  /**
   * A skill was called ok: the discoveries of its conversation it may learn from (each once; those
   * `teaches` accepts are marked taught), and the skill called before it. The latest discovery may
   * teach a skill it did not return; an earlier one only what it returned (the conversation has moved on).
   */
  called(conversationId: string, key: string, now: number, teaches: (offer: Offer<T>) => boolean): { queries: string[]; previous: string | null } {
    const conversation = this.#touch(conversationId, now)
    const queries: string[] = []
    const latest = conversation.offers.at(-1)
    for (const offer of conversation.offers) {
      if (offer.taught.has(key) || (offer !== latest && !offer.returned.has(key)) || !teaches(offer)) continue
      offer.taught.add(key)
      queries.push(offer.query)
    }
    const previous = conversation.last
    conversation.last = key
    return { queries, previous }
  }

  #touch(conversationId: string, now: number): Conversation<T> {
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
