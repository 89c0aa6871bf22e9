import type { Duplex } from 'node:stream'
import { WebSocket } from 'ws'

/**
 * Sends a tunnel's frames so that those sent in one turn of the event loop leave in one write: the
 * socket under the WebSocket is corked at the turn's first frame and uncorked once its microtasks
 * have run. ws writes each frame on its own (a `writev` syscall apiece, the costliest step of a call
 * on loopback), and calls in flight together are answered in the same turn.
 */
export class FrameWriter {
  readonly #ws: WebSocket
  readonly #socket: Duplex | undefined
  #corked = false
  readonly #uncork = () => {
    this.#corked = false
    this.#socket!.uncork()
  }

  /** `socket` is the connection the WebSocket runs on; without it each frame is written at once. */
  constructor(ws: WebSocket, socket: Duplex | undefined) {
    this.#ws = ws
    this.#socket = socket
  }

  /** Send one text frame, if the connection is open (a frame for a closed one can't arrive anyway). */
  send(text: string): void {
    if (this.#ws.readyState !== WebSocket.OPEN) return
    if (this.#socket && !this.#corked) {
      this.#corked = true
      this.#socket.cork()
      // After the microtasks queued now: every frame the same turn sends shares the write.
      process.nextTick(this.#uncork)
    }
    this.#ws.send(text)
  }
}
