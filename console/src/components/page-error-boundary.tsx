import { Component, type ReactNode } from 'react'

/**
 * A page that fails to draw says so, in place of a blank page; the header and its links stay, and
 * another page starts afresh (the boundary is keyed by the path).
 */
export class PageErrorBoundary extends Component<{ children: ReactNode }, { error: Error | null }> {
  state: { error: Error | null } = { error: null }

  static getDerivedStateFromError(error: Error) {
    return { error }
  }

  render() {
    if (!this.state.error) return this.props.children
    return (
      <section data-testid="page-crashed">
        <h1>This page failed</h1>
        <p className="error" role="alert">
          {this.state.error.message}
        </p>
        <p className="muted">The browser console has the details. Other pages still work.</p>
      </section>
    )
  }
}
