// The elements an activation wraps a body in; `< /x` too, since a model reads tags loosely.
const WRAPPER_TAG = /<(?=\s*\/?\s*(?:skill_content|skill_resources|skill_note)\b)/gi

/**
 * A body with the `<` of every opening or closing tag of the activation's own elements escaped,
 * so a body can't end its <skill_content> early or fake a resource list or a note.
 */
export function escapeWrapperTags(body: string): string {
  return body.replace(WRAPPER_TAG, '&lt;')
}
