export { toAISDKTools, SkillCallError, type AISDKToolOptions } from './to-ai-sdk-tools.js'
export { toOpenAITools, type OpenAITool, type OpenAIToolCall, type OpenAIToolMessage } from './to-openai-tools.js'
export { toAnthropicTools, type AnthropicTool, type AnthropicToolUse, type AnthropicToolResult } from './to-anthropic-tools.js'
export { UnknownAgentError, type ToolAdapterOptions } from './call-tool.js'
