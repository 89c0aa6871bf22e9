export { codeSource, type CodeDefinition } from './code-source.js'
