import Mustache from 'mustache'

export interface TemplateView {
  user: { id: string; name: string; role: string }
  agent: { id: string; name: string } | null
  /** Variables from the config (templateVars). */
  vars: Record<string, string>
  /** Per category of executable skills, the keys the effective policy denies this caller. */
  denied: Record<string, string[]>
}

export type Rendered = { ok: true; text: string } | { ok: false; line: number; message: string }

type Token = [string, string, number, number, Token[]?, ...unknown[]]

const DENIED = 'denied_actions.'
// Marks where an empty denied-actions line was, so its surrounding blank line can go with it.
const GONE = '\u0000gone\u0000'

/** Check a template without a caller (the validator): any vars.NAME and any category are accepted. */
export function checkTemplate(template: string, firstLine = 1): Rendered {
  const anyVars = new Proxy(
    {},
    { has: () => true, get: () => 'x', getOwnPropertyDescriptor: () => ({ value: 'x', enumerable: true, configurable: true }) },
  ) as Record<string, string>
  const view: TemplateView = { user: { id: 'u', name: 'u', role: 'viewer' }, agent: { id: 'a', name: 'a' }, vars: anyVars, denied: {} }
  return renderTemplate(template, view, firstLine, ['*'])
}

/**
 * Render a SKILL.md.template body for one (user, agent) with mustache, strictly: every variable,
 * section and partial must be one skillplane provides, and nothing like `{{` may survive. The
 * built-in partial `{{> denied_actions.CATEGORY}}` becomes "These actions are unavailable and
 * should not be attempted: …" or, when nothing is denied, disappears with its line.
 */
export function renderTemplate(template: string, view: TemplateView, firstLine = 1, categories: readonly string[] = Object.keys(view.denied)): Rendered {
  const lineAt = (offset: number) => firstLine + template.slice(0, offset).split('\n').length - 1
  let tokens: Token[]
  try {
    tokens = Mustache.parse(template) as unknown as Token[]
  } catch (error) {
    const at = /at (\d+)/.exec((error as Error).message)
    return { ok: false, line: at ? lineAt(Number(at[1])) : firstLine, message: `template syntax: ${(error as Error).message}` }
  }
  const problem = checkTokens(tokens, view, categories, [])
  if (problem) return { ok: false, line: lineAt(problem.offset), message: problem.message }

  const partials: Record<string, string> = {}
  for (const category of categories.filter((c) => c !== '*')) {
    const keys = view.denied[category] ?? []
    partials[DENIED + category] = keys.length ? `These actions are unavailable and should not be attempted: ${keys.join(', ')}.\n` : `${GONE}\n`
  }
  // Markdown, not HTML: values go in as written.
  const rendered = Mustache.render(template, { user: view.user, agent: view.agent ?? false, vars: view.vars }, partials, { escape: (s: string) => s })
  // An empty built-in line goes, and with it one blank line around it, so no double gap is left.
  const text = rendered.replace(new RegExp(`(\\n\\n|^)${GONE}\\n\\n`, 'g'), '$1').replaceAll(`${GONE}\n`, '')
  const leftover = text.indexOf('{{')
  if (leftover !== -1) {
    return {
      ok: false,
      line: firstLine + text.slice(0, leftover).split('\n').length - 1,
      message: 'a "{{" is left over after rendering (a value put into the template contains one)',
    }
  }
  return { ok: true, text }
}

/** The names a template may use; inside {{#agent}} and {{#user}} their fields are in scope bare. */
function checkTokens(tokens: Token[], view: TemplateView, categories: readonly string[], scopes: string[]): { offset: number; message: string } | null {
  const known = (name: string) => {
    if (name === '.') return scopes.length > 0
    const [head, ...rest] = name.split('.')
    const field = rest.join('.')
    if (head === 'user') return rest.length === 0 || ['id', 'name', 'role'].includes(field)
    if (head === 'agent') return rest.length === 0 || ['id', 'name'].includes(field)
    if (head === 'vars') return rest.length === 0 || Object.hasOwn(view.vars, field)
    return scopes.some((scope) => (scope === 'user' ? ['id', 'name', 'role'] : scope === 'agent' ? ['id', 'name'] : []).includes(name))
  }
  for (const [type, value, start, , children] of tokens) {
    if (type === 'name' || type === '&' || type === '#' || type === '^') {
      if (!known(value))
        return { offset: start, message: `unknown template variable "${value}": use user.id, user.name, user.role, agent.id, agent.name or vars.NAME` }
      if (children) {
        // Only a section that renders its value opens its fields; an inverted one renders when it is empty.
        const inner = checkTokens(children, view, categories, type === '#' ? [...scopes, value] : scopes)
        if (inner) return inner
      }
    } else if (type === '>') {
      const category = value.slice(DENIED.length)
      if (!value.startsWith(DENIED) || !category || !(categories.includes(category) || categories.includes('*'))) {
        return {
          offset: start,
          message: `unknown partial "${value}": the built-in one is denied_actions.CATEGORY, with a category of executable skills (${categories.join(', ') || 'none'})`,
        }
      }
    }
  }
  return null
}
