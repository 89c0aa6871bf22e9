/**
 * The names secrets and settings are stored under: what `skillplane secrets set NAME` takes, and
 * an environment variable name. `__proto__` is not one: as an object key it would set a prototype.
 */
export const VALUE_NAME = /^(?!__proto__$)[A-Za-z_][A-Za-z0-9_]{0,127}$/

/** The rule in words, for error messages. */
export const VALUE_NAME_RULE = 'letters, digits and _, not starting with a digit, at most 128, not __proto__'
