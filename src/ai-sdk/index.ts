export { toAISDKTools, toAISDKToolLoop, SkillCallError, type AISDKToolOptions, type AISDKToolLoop } from './to-ai-sdk-tools.js'
export { toOpenAITools, type OpenAITool, type OpenAIToolCall, type OpenAIToolMessage } from './to-openai-tools.js'
export { toAnthropicTools, type AnthropicTool, type AnthropicToolUse, type AnthropicToolResult, type AnthropicToolReference } from './to-anthropic-tools.js'
export { UnknownAgentError, type ToolAdapterOptions } from './call-tool.js'
