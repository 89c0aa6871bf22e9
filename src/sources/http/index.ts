// HTTP skills from the config and OpenAPI documents: requests built from input, under egress rules.
export { HttpSource } from './http-source.js'
