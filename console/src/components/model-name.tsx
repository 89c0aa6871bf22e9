/** An agent's model as provider/model, or that it has none. */
export function ModelName({ model }: { model: { provider: string; model: string } | null }) {
  if (!model) return <span className="muted">no model</span>
  return (
    <code title={`provider ${model.provider}`}>
      {model.provider}/{model.model}
    </code>
  )
}
