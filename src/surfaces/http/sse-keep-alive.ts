/** How often an idle event stream sends a comment, so proxies and browsers keep it open. */
export const SSE_KEEP_ALIVE_MS = 15_000
