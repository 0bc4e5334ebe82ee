// The closed world of `warden mcp`: every MCP method in either direction, every notification,
// every content block, message role, resource contents form and elicitation field type, each
// checked as an event, passed as inert, or refused. Whatever is not in these tables is refused
// naming it, unless `mcp.allowUnknownTypes` lets that one key through (audited).

import type { ItemRule, ItemTable } from '../kit/index.js'

const checked = (event: string, note: string): ItemRule => ({ kind: 'checked', event, note })
const inert = (note: string): ItemRule => ({ kind: 'inert', note })
const refused = (note: string): ItemRule => ({ kind: 'refused', note })

const TASK_RESULT = refused(
  'a task result is the deferred answer of a request whose checks cannot be tied to it (task-augmented requests are refused too)',
)

/** Requests a client sends to a server. */
export const MCP_CLIENT_REQUESTS: ItemTable = {
  protocol: 'mcp',
  place: 'client request',
  key: 'client-request',
  rules: {
    initialize: checked('mcp.outbound', 'the handshake: capabilities and versions'),
    ping: inert('a liveness probe with no content (still seen as mcp.outbound)'),
    'tools/list': checked('mcp.outbound', 'the answer is filtered by tools.hide and compared with the pins'),
    'tools/call': checked('tool.pre', 'arguments as tool.input; the result as tool.post'),
    'resources/list': checked('mcp.resource.read', 'each listed URI is checked; denied ones are left out'),
    'resources/templates/list': checked(
      'mcp.resource.read',
      'each listed URI template is checked; denied ones are left out',
    ),
    'resources/read': checked('mcp.resource.read', 'the URI before, the contents as mcp.resource.read.post'),
    'resources/subscribe': checked('mcp.resource.read', 'the URI subscribed to'),
    'resources/unsubscribe': checked('mcp.resource.read', 'the URI unsubscribed from'),
    'prompts/list': checked('mcp.outbound', 'prompt names and argument descriptions'),
    'prompts/get': checked('mcp.prompt.get', 'the arguments before, the messages as mcp.prompt.get.post'),
    'completion/complete': checked('mcp.outbound', 'argument completions'),
    'logging/setLevel': checked('mcp.outbound', 'the server log level'),
    'tasks/get': checked('mcp.outbound', 'a task status'),
    'tasks/list': checked('mcp.outbound', 'task statuses'),
    'tasks/cancel': checked('mcp.outbound', 'cancels a task'),
    'tasks/result': TASK_RESULT,
  },
}

/** Requests a server sends to its client. */
export const MCP_SERVER_REQUESTS: ItemTable = {
  protocol: 'mcp',
  place: 'server request',
  key: 'server-request',
  rules: {
    ping: inert('a liveness probe with no content (still seen as mcp.inbound)'),
    'sampling/createMessage': checked(
      'mcp.sampling',
      'the messages and system prompt before the client model sees them; its answer as mcp.sampling.post',
    ),
    'elicitation/create': checked(
      'mcp.elicitation',
      'the message and schema shown to the user; the answer as mcp.elicitation.post',
    ),
    'roots/list': checked('mcp.inbound', "the answer lists the client's roots"),
    'tasks/get': checked('mcp.inbound', 'a task status'),
    'tasks/list': checked('mcp.inbound', 'task statuses'),
    'tasks/cancel': checked('mcp.inbound', 'cancels a task'),
    'tasks/result': TASK_RESULT,
  },
}

/** Notifications a client sends. */
export const MCP_CLIENT_NOTIFICATIONS: ItemTable = {
  protocol: 'mcp',
  place: 'client notification',
  key: 'client-notification',
  rules: {
    'notifications/initialized': checked('mcp.outbound', 'the end of the handshake'),
    'notifications/cancelled': checked('mcp.outbound', 'cancels a request in flight'),
    'notifications/progress': checked('mcp.outbound', 'progress of a server request'),
    'notifications/roots/list_changed': checked('mcp.outbound', 'the roots changed'),
    'notifications/tasks/status': checked('mcp.outbound', 'a task status'),
  },
}

/** Notifications a server sends. */
export const MCP_SERVER_NOTIFICATIONS: ItemTable = {
  protocol: 'mcp',
  place: 'server notification',
  key: 'server-notification',
  rules: {
    'notifications/cancelled': checked('mcp.inbound', 'cancels a request in flight'),
    'notifications/progress': checked('mcp.inbound', 'progress of a client request'),
    'notifications/message': checked('mcp.inbound', 'a server log line'),
    'notifications/resources/updated': checked(
      'mcp.resource.read',
      'the URI announced; a denied one is dropped',
    ),
    'notifications/resources/list_changed': checked('mcp.inbound', 'the resource list changed'),
    'notifications/prompts/list_changed': checked('mcp.inbound', 'the prompt list changed'),
    'notifications/tools/list_changed': checked('mcp.inbound', 'the tool list changed'),
    'notifications/elicitation/complete': checked('mcp.inbound', 'a URL elicitation finished'),
    'notifications/tasks/status': checked('mcp.inbound', 'a task status'),
  },
}

/** Content blocks of a tools/call result. */
export const MCP_TOOL_CONTENT: ItemTable = {
  protocol: 'mcp',
  place: 'tool result content block',
  key: 'tool-content',
  rules: {
    text: checked('tool.post', 'the text'),
    image: checked('tool.post', 'base64 data and mimeType, as sent'),
    audio: checked('tool.post', 'base64 data and mimeType, as sent'),
    resource: checked('tool.post', 'the embedded resource: its URI and text or blob'),
    resource_link: checked('tool.post', 'the URI, name and description (a read of it is checked again)'),
  },
}

/** Content blocks of a prompts/get message. */
export const MCP_PROMPT_CONTENT: ItemTable = {
  protocol: 'mcp',
  place: 'prompt message content block',
  key: 'prompt-content',
  rules: {
    text: checked('mcp.prompt.get.post', 'the text'),
    image: checked('mcp.prompt.get.post', 'base64 data and mimeType, as sent'),
    audio: checked('mcp.prompt.get.post', 'base64 data and mimeType, as sent'),
    resource: checked('mcp.prompt.get.post', 'the embedded resource: its URI and text or blob'),
    resource_link: checked('mcp.prompt.get.post', 'the URI, name and description'),
  },
}

/** Content blocks of a sampling/createMessage request's messages and of its answer. */
export const MCP_SAMPLING_CONTENT: ItemTable = {
  protocol: 'mcp',
  place: 'sampling content block',
  key: 'sampling-content',
  rules: {
    text: checked('mcp.sampling', 'the text (in an answer: mcp.sampling.post)'),
    image: checked('mcp.sampling', 'base64 data and mimeType, as sent'),
    audio: checked('mcp.sampling', 'base64 data and mimeType, as sent'),
    tool_use: checked('mcp.sampling.post', "the client model's tool call: name and input"),
    tool_result: checked('mcp.sampling', 'the tool result the server hands to the client model'),
  },
}

/** The roles of prompt and sampling messages. */
export const MCP_MESSAGE_ROLES: ItemTable = {
  protocol: 'mcp',
  place: 'message role',
  key: 'role',
  rules: {
    user: checked('mcp.prompt.get.post', 'a user turn (in sampling: mcp.sampling)'),
    assistant: checked('mcp.prompt.get.post', 'an assistant turn (in sampling: mcp.sampling)'),
  },
}

/** The forms of resources/read contents (and of embedded resources): text or base64 blob. */
export const MCP_RESOURCE_CONTENTS: ItemTable = {
  protocol: 'mcp',
  place: 'resource contents',
  key: 'resource-contents',
  rules: {
    text: checked('mcp.resource.read.post', 'the text'),
    blob: checked('mcp.resource.read.post', 'base64 data, as sent'),
  },
}

/** The field types of an elicitation/create form (its requestedSchema properties). */
export const MCP_ELICITATION_FIELDS: ItemTable = {
  protocol: 'mcp',
  place: 'elicitation field',
  key: 'elicitation-field',
  rules: {
    string: checked('mcp.elicitation', 'title, description, enum and default'),
    number: checked('mcp.elicitation', 'title, description and bounds'),
    integer: checked('mcp.elicitation', 'title, description and bounds'),
    boolean: checked('mcp.elicitation', 'title, description and default'),
    array: checked('mcp.elicitation', 'a multi-select: title, description and items'),
  },
}

/** Every table of `warden mcp`, in the order the docs list them. */
export const MCP_TABLES: readonly ItemTable[] = [
  MCP_CLIENT_REQUESTS,
  MCP_SERVER_REQUESTS,
  MCP_CLIENT_NOTIFICATIONS,
  MCP_SERVER_NOTIFICATIONS,
  MCP_TOOL_CONTENT,
  MCP_PROMPT_CONTENT,
  MCP_SAMPLING_CONTENT,
  MCP_MESSAGE_ROLES,
  MCP_RESOURCE_CONTENTS,
  MCP_ELICITATION_FIELDS,
]

/** The setting that lets a named unknown MCP type through. */
export const MCP_UNKNOWN_TYPES_SETTING = 'mcp.allowUnknownTypes'
