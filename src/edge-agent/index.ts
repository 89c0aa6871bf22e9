export { EdgeAgent, EdgeRefused, type EdgeAgentOptions } from './edge-agent.js'
