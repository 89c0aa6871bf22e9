#!/usr/bin/env node
// The MCP server the conformance suite's server scenarios need (@modelcontextprotocol/conformance 0.1.16),
// for skillplane to import: a real SDK server over stdio (low-level Server, so every schema goes out as written).
// Imported as server `test`, its tool `simple_text` is skillplane's `test_simple_text`, its prompt
// `simple_prompt` is `test_simple_prompt`; its resource URIs pass through as they are (`test://static-text`).
// With the argument `json` it serves only `schema_2020_12_tool`: imported as server `json` that is
// `json_schema_2020_12_tool`, the one scenario tool name without the `test_` prefix.
// `--fault simple_text` makes that tool answer an empty result, for a test that needs a scenario to fail.
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  CreateMessageResultSchema,
  ElicitResultSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js'

// A 1x1 red PNG and a WAV file with no samples: the smallest valid image and audio.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=='
const WAV = 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA='

const NO_ARGUMENTS = { type: 'object', properties: {} }
const readOnly = { readOnlyHint: true }

const TEST_TOOLS = [
  { name: 'simple_text', description: 'Return one text block.', inputSchema: NO_ARGUMENTS, annotations: readOnly },
  { name: 'image_content', description: 'Return a PNG image.', inputSchema: NO_ARGUMENTS, annotations: readOnly },
  { name: 'audio_content', description: 'Return a WAV sound.', inputSchema: NO_ARGUMENTS, annotations: readOnly },
  { name: 'embedded_resource', description: 'Return an embedded text resource.', inputSchema: NO_ARGUMENTS, annotations: readOnly },
  { name: 'multiple_content_types', description: 'Return text, an image and a resource.', inputSchema: NO_ARGUMENTS, annotations: readOnly },
  { name: 'tool_with_logging', description: 'Send three info log messages while running.', inputSchema: NO_ARGUMENTS, annotations: readOnly },
  { name: 'tool_with_progress', description: 'Report progress 0, 50 and 100 of 100 while running.', inputSchema: NO_ARGUMENTS, annotations: readOnly },
  { name: 'error_handling', description: 'Always fail with a tool error.', inputSchema: NO_ARGUMENTS, annotations: readOnly },
  {
    name: 'sampling',
    description: "Ask the client's model to answer a prompt (sampling/createMessage).",
    inputSchema: { type: 'object', properties: { prompt: { type: 'string', description: 'The prompt to send to the LLM' } }, required: ['prompt'] },
    annotations: readOnly,
  },
  {
    name: 'elicitation',
    description: 'Ask the person at the client for a user name and an email address (elicitation/create).',
    inputSchema: { type: 'object', properties: { message: { type: 'string', description: 'The message to show the user' } }, required: ['message'] },
    annotations: readOnly,
  },
  {
    name: 'elicitation_sep1034_defaults',
    description: 'Ask with a form whose fields have defaults (SEP-1034).',
    inputSchema: NO_ARGUMENTS,
    annotations: readOnly,
  },
  { name: 'elicitation_sep1330_enums', description: 'Ask with a form of the five enum kinds (SEP-1330).', inputSchema: NO_ARGUMENTS, annotations: readOnly },
  {
    name: 'reconnection',
    description: 'Take a moment before answering (the SSE polling scenario calls it).',
    inputSchema: NO_ARGUMENTS,
    annotations: readOnly,
  },
]

const JSON_TOOLS = [
  {
    name: 'schema_2020_12_tool',
    description: 'Tool with JSON Schema 2020-12 features',
    inputSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
      properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
      additionalProperties: false,
    },
    annotations: readOnly,
  },
]

const ELICIT_USER = {
  type: 'object',
  properties: {
    username: { type: 'string', description: "User's response" },
    email: { type: 'string', description: "User's email address" },
  },
  required: ['username', 'email'],
}

const ELICIT_DEFAULTS = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'User name', default: 'John Doe' },
    age: { type: 'integer', description: 'User age', default: 30 },
    score: { type: 'number', description: 'User score', default: 95.5 },
    status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
    verified: { type: 'boolean', description: 'Verification status', default: true },
  },
}

const ELICIT_ENUMS = {
  type: 'object',
  properties: {
    untitledSingle: { type: 'string', title: 'Untitled single-select', enum: ['option1', 'option2', 'option3'] },
    titledSingle: {
      type: 'string',
      title: 'Titled single-select',
      oneOf: [
        { const: 'value1', title: 'First Option' },
        { const: 'value2', title: 'Second Option' },
        { const: 'value3', title: 'Third Option' },
      ],
    },
    legacyEnum: { type: 'string', title: 'Legacy titled enum', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
    untitledMulti: { type: 'array', title: 'Untitled multi-select', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
    titledMulti: {
      type: 'array',
      title: 'Titled multi-select',
      items: {
        anyOf: [
          { const: 'value1', title: 'First Choice' },
          { const: 'value2', title: 'Second Choice' },
          { const: 'value3', title: 'Third Choice' },
        ],
      },
    },
  },
}

const PROMPTS = [
  { name: 'simple_prompt', description: 'A prompt without arguments.' },
  {
    name: 'prompt_with_arguments',
    description: 'A prompt that quotes its two arguments.',
    arguments: [
      { name: 'arg1', description: 'First test argument', required: true },
      { name: 'arg2', description: 'Second test argument', required: true },
    ],
  },
  {
    name: 'prompt_with_embedded_resource',
    description: 'A prompt that embeds a resource.',
    arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
  },
  { name: 'prompt_with_image', description: 'A prompt with an image.' },
]

const RESOURCES = [
  { uri: 'test://static-text', name: 'static-text', description: 'A static text resource.', mimeType: 'text/plain' },
  { uri: 'test://static-binary', name: 'static-binary', description: 'A static binary resource (a PNG image).', mimeType: 'image/png' },
  { uri: 'test://watched-resource', name: 'watched-resource', description: 'A resource clients may subscribe to.', mimeType: 'text/plain' },
]
const TEMPLATE = /^test:\/\/template\/([^/]+)\/data$/
const TEMPLATES = [{ uriTemplate: 'test://template/{id}/data', name: 'template-data', description: 'Data for an id.', mimeType: 'application/json' }]

// What completion/complete offers, by prompt argument and by template variable.
const ARG1_VALUES = ['paris', 'park', 'party', 'test-value', 'testing']
const ID_VALUES = ['123', '456', '789']

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const text = (value) => ({ content: [{ type: 'text', text: value }] })
const toolError = (value) => ({ isError: true, ...text(value) })

function createConformanceServer(profile, fault) {
  const tools = profile === 'json' ? JSON_TOOLS : TEST_TOOLS
  const server = new Server(
    { name: `conformance-fixture-${profile}`, version: '1.0.0' },
    {
      capabilities: profile === 'json' ? { tools: {} } : { tools: {}, prompts: {}, resources: { subscribe: true }, logging: {}, completions: {} },
    },
  )
  const subscriptions = new Set()

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }))
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args = {} } = request.params
    if (!tools.some((tool) => tool.name === name)) throw new McpError(ErrorCode.InvalidParams, `unknown tool "${name}"`)
    const client = server.getClientCapabilities() ?? {}
    switch (name) {
      case 'schema_2020_12_tool':
        return text(`received ${JSON.stringify(args)}`)
      case 'simple_text':
        return fault === 'simple_text' ? { content: [] } : text('This is a simple text response for testing.')
      case 'image_content':
        return { content: [{ type: 'image', data: PNG, mimeType: 'image/png' }] }
      case 'audio_content':
        return { content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }] }
      case 'embedded_resource':
        return {
          content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }],
        }
      case 'multiple_content_types':
        return {
          content: [
            { type: 'text', text: 'Multiple content types test:' },
            { type: 'image', data: PNG, mimeType: 'image/png' },
            { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' } },
          ],
        }
      case 'tool_with_logging': {
        // Sent as part of this request, so a gateway can tell whose call the log lines belong to.
        const log = (data) => extra.sendNotification({ method: 'notifications/message', params: { level: 'info', logger: 'conformance-fixture', data } })
        await log('Tool execution started')
        await sleep(50)
        await log('Tool processing data')
        await sleep(50)
        await log('Tool execution completed')
        return text('Tool with logging executed successfully')
      }
      case 'tool_with_progress': {
        const token = request.params._meta?.progressToken
        for (const progress of [0, 50, 100]) {
          if (progress > 0) await sleep(50)
          if (token !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, total: 100 } })
        }
        return text('Tool with progress executed successfully')
      }
      case 'error_handling':
        return toolError('This tool intentionally returns an error for testing')
      case 'sampling': {
        if (!client.sampling) return toolError('sampling is not supported by this client: it did not declare the sampling capability')
        const result = await extra.sendRequest(
          { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: args.prompt } }], maxTokens: 100 } },
          CreateMessageResultSchema,
        )
        return text(`LLM response: ${result.content?.type === 'text' ? result.content.text : JSON.stringify(result.content)}`)
      }
      case 'elicitation':
      case 'elicitation_sep1034_defaults':
      case 'elicitation_sep1330_enums': {
        if (!client.elicitation) return toolError('elicitation is not supported by this client: it did not declare the elicitation capability')
        const [message, requestedSchema, prefix] =
          name === 'elicitation'
            ? [args.message, ELICIT_USER, 'User response']
            : name === 'elicitation_sep1034_defaults'
              ? ['Please review and update the form fields with defaults', ELICIT_DEFAULTS, 'Elicitation completed']
              : ['Please choose from the options', ELICIT_ENUMS, 'Elicitation completed']
        const result = await extra.sendRequest({ method: 'elicitation/create', params: { mode: 'form', message, requestedSchema } }, ElicitResultSchema)
        return text(`${prefix}: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`)
      }
      case 'reconnection':
        await sleep(200)
        return text('Reconnection test completed successfully.')
    }
  })

  if (profile === 'json') return server

  server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: PROMPTS }))
  server.setRequestHandler(GetPromptRequestSchema, async (request) => {
    const { name, arguments: args = {} } = request.params
    const prompt = PROMPTS.find((p) => p.name === name)
    if (!prompt) throw new McpError(ErrorCode.InvalidParams, `unknown prompt "${name}"`)
    const missing = (prompt.arguments ?? []).filter((a) => a.required && typeof args[a.name] !== 'string').map((a) => a.name)
    if (missing.length > 0) throw new McpError(ErrorCode.InvalidParams, `prompt "${name}" needs the arguments ${missing.join(', ')}`)
    switch (name) {
      case 'simple_prompt':
        return { messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }] }
      case 'prompt_with_arguments':
        return { messages: [{ role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'` } }] }
      case 'prompt_with_embedded_resource':
        return {
          messages: [
            {
              role: 'user',
              content: { type: 'resource', resource: { uri: args.resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' } },
            },
            { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
          ],
        }
      case 'prompt_with_image':
        return {
          messages: [
            { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
            { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
          ],
        }
    }
  })

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: RESOURCES }))
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: TEMPLATES }))
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const { uri } = request.params
    if (uri === 'test://static-text') return { contents: [{ uri, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }] }
    if (uri === 'test://static-binary') return { contents: [{ uri, mimeType: 'image/png', blob: PNG }] }
    if (uri === 'test://watched-resource') return { contents: [{ uri, mimeType: 'text/plain', text: 'Watched resource content' }] }
    const id = TEMPLATE.exec(uri)?.[1]
    if (id !== undefined) {
      const data = { id: decodeURIComponent(id), templateTest: true, data: `Data for ID: ${decodeURIComponent(id)}` }
      return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(data) }] }
    }
    throw new McpError(-32002, `Resource not found: ${uri}`, { uri })
  })
  server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    subscriptions.add(request.params.uri)
    return {}
  })
  server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    subscriptions.delete(request.params.uri)
    return {}
  })

  server.setRequestHandler(CompleteRequestSchema, async (request) => {
    const { ref, argument } = request.params
    const candidates =
      ref.type === 'ref/prompt' && ref.name === 'prompt_with_arguments' && argument.name === 'arg1'
        ? ARG1_VALUES
        : ref.type === 'ref/resource' && ref.uri === 'test://template/{id}/data' && argument.name === 'id'
          ? ID_VALUES
          : []
    const values = candidates.filter((value) => value.startsWith(argument.value))
    return { completion: { values, total: values.length, hasMore: false } }
  })

  return server
}

const [profile = 'test', option, fault] = process.argv.slice(2)
if ((profile !== 'test' && profile !== 'json') || (option !== undefined && (option !== '--fault' || fault !== 'simple_text'))) {
  process.stderr.write(`usage: conformance-server.mjs [test|json] [--fault simple_text] (got ${process.argv.slice(2).join(' ')})\n`)
  process.exit(2)
}
await createConformanceServer(profile, fault).connect(new StdioServerTransport())
