import { escapeXml } from './escape-xml.js'

/**
 * The system-prompt fragment listing the skills an agent may activate; empty when there are none,
 * so a prompt without skills carries no empty catalog.
 */
export function skillsPrompt(skills: ReadonlyArray<{ name: string; description: string }>): string {
  if (skills.length === 0) return ''
  const entries = skills.map((s) => `  <skill>\n    <name>${escapeXml(s.name)}</name>\n    <description>${escapeXml(s.description)}</description>\n  </skill>`)
  return `<available_skills>\n${entries.join('\n')}\n</available_skills>`
}

/** Whether a message carries activated skill content, which must survive context compaction. */
export function carriesSkillContent(text: string): boolean {
  return /<skill_content\s+name="/.test(text)
}
