#!/usr/bin/env node
// The starter of lesson 3: an MCP client for revision 2026-07-28, written by
// hand for Node 18 or later, with no packages.
//
// It mounts the servers named in a configuration file, starting the stdio
// ones itself and POSTing to the Streamable HTTP ones, puts all their tools in
// one namespace (mcp__ALIAS__TOOL), and answers one JSON command per line on
// stdin with one JSON answer per line on stdout:
//
//   {"command":"list_tools"}
//   {"command":"call_tool","name":"mcp__notes__search","arguments":{"query":"retry"}}
//
// The contract it follows is the lesson's CONTRACT.md. Five parts are left
// for you; each is marked TODO(lesson 3), in the order to do them.
//
// The file reads from the top down: the configuration, the JSON-RPC core
// shared by both transports, stdio, Streamable HTTP, the namespace that
// joins the servers, and last the command loop.
'use strict'

const { spawn } = require('node:child_process')
const { createHash } = require('node:crypto')
const fs = require('node:fs')
const readline = require('node:readline')

// The MCP revision this client speaks. There is no handshake in 2026-07-28:
// every request names it in its _meta.
const PROTOCOL_VERSION = '2026-07-28'
// How long a request to a server without timeoutMs may wait. Thirty seconds
// is a choice, not a rule; what matters is that a server that never answers
// cannot hang the client.
const DEFAULT_TIMEOUT_MS = 30000
// How long the servers get to exit on their own, once their stdin is closed,
// before they are killed: one that never exits costs this much at every end.
const CLOSE_GRACE_MS = 500
// The longest message read from a server, so that a peer cannot make the
// client hold unbounded memory.
const MAX_MESSAGE = 16 << 20
// The budget of one tool result, in characters.
const MAX_RESULT_CHARS = 8000
// The longest tool name most model APIs accept.
const MAX_NAME_LENGTH = 64

// log writes a note for the person running the client. stdout carries the
// answers and nothing else, so notes go to stderr.
function log (text) {
  process.stderr.write(`mcpclient: ${text}\n`)
}

// ClientError is why a request got no result: it says what happened, in
// words.
class ClientError extends Error {}

// TimeoutError is a request that got no answer in time.
class TimeoutError extends Error {}

// ---------------------------------------------------------------------------
// The configuration
// ---------------------------------------------------------------------------

// duplicateMember finds a member name given twice in one object of the JSON
// text. JSON.parse keeps only the last of the two, and an alias given twice
// must be an error before anything starts, so we look at the text itself.
function duplicateMember (text) {
  const stack = [] // for each open object, the names seen; null for an array
  const token = /"(?:[^"\\]|\\.)*"|[{}[\]:,]|[^\s{}[\]:,"]+/g
  let previous = null
  let match
  while ((match = token.exec(text)) !== null) {
    const t = match[0]
    if (t === '{') stack.push(new Set())
    else if (t === '[') stack.push(null)
    else if (t === '}' || t === ']') stack.pop()
    else if (t === ':' && previous !== null && previous.startsWith('"')) {
      const names = stack[stack.length - 1]
      const name = JSON.parse(previous)
      if (names) {
        if (names.has(name)) return name
        names.add(name)
      }
    }
    previous = t
  }
  return null
}

// loadConfig reads the configuration: a list of server entries, in the
// file's order (object members keep their order in JavaScript, unless their
// names look like array indexes), each with its alias.
function loadConfig (path) {
  const text = fs.readFileSync(path, 'utf8')
  const config = JSON.parse(text)
  const twice = duplicateMember(text)
  if (twice !== null) {
    throw new Error(`${JSON.stringify(twice)} appears twice in one object; an alias in particular must be unique, since it prefixes the server's tool names`)
  }
  const servers = config && typeof config === 'object' ? config.servers : undefined
  if (!servers || typeof servers !== 'object' || Array.isArray(servers) || Object.keys(servers).length === 0) {
    throw new Error('no servers: the configuration needs {"servers": {ALIAS: {...}}}')
  }
  return Object.entries(servers).map(([alias, entry]) => {
    if (!alias || !entry || typeof entry !== 'object') {
      throw new Error(`server ${JSON.stringify(alias)} must be an object with a non-empty alias`)
    }
    if (('command' in entry) === ('url' in entry)) {
      throw new Error(`server ${JSON.stringify(alias)} needs either "command" (stdio) or "url" (HTTP)`)
    }
    const timeoutMs = entry.timeoutMs
    if (timeoutMs !== undefined && !(typeof timeoutMs === 'number' && timeoutMs > 0)) {
      throw new Error(`server ${JSON.stringify(alias)}: timeoutMs must be a positive number of milliseconds`)
    }
    const args = entry.args === undefined ? [] : entry.args
    if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) {
      throw new Error(`server ${JSON.stringify(alias)}: "args" must be a list of strings`)
    }
    return { alias, command: entry.command, args, url: entry.url, timeoutMs: timeoutMs === undefined ? DEFAULT_TIMEOUT_MS : timeoutMs }
  })
}

// ---------------------------------------------------------------------------
// The JSON-RPC core
// ---------------------------------------------------------------------------

// isNotification: a message without an id is a notification; it answers no
// request.
function isNotification (message) {
  return !('id' in message) && typeof message.method === 'string'
}

// answers tells whether message is the response to the request with id.
function answers (message, id) {
  return !('method' in message) && message.id === id
}

// Connection is the client's side of one server: it numbers the requests and
// puts _meta in each. The transport carries them.
class Connection {
  constructor (alias, timeoutMs, transport) {
    this.alias = alias
    this.timeoutMs = timeoutMs
    this.transport = transport
    this.nextId = 0
  }

  // call sends method with params and resolves to the result, or rejects
  // with a ClientError saying why there is none.
  async call (method, params = {}) {
    // Numbering: the next integer of this connection. Ids only have to be
    // unique among the requests still open here, so a counter does it.
    const id = ++this.nextId
    // _meta goes inside params, on every request: the protocol is stateless,
    // so each request says again which revision it speaks and what the
    // client can do (nothing extra: an empty object).
    const meta = {
      'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 'lesson3-starter-javascript', version: '0.1.0' }
    }
    let name = null
    if (method === 'tools/call') {
      // Ask for progress reports, with the request's own id as the token: a
      // slow tool can then say how it is doing (and a server may only send
      // progress when asked).
      meta.progressToken = id
      name = params.name
    }
    const request = { jsonrpc: '2.0', method, params: { ...params, _meta: meta } }
    request.id = id
    const body = JSON.stringify(request)
    // Every request gets a deadline.
    let message
    try {
      message = await this.transport.roundTrip(id, method, name, body, this.timeoutMs)
    } catch (err) {
      if (err instanceof TimeoutError) {
        throw new ClientError(`${method} (id ${id}) got no answer within ${this.timeoutMs / 1000}s`)
      }
      throw new ClientError(`${method} (id ${id}): ${err.message}`)
    }
    if (message.error !== undefined) {
      const e = message.error || {}
      throw new ClientError(`${method} (id ${id}): the server answered with error ${e.code}: ${e.message}`)
    }
    // A response carries either a result or an error. One with neither is read as an
    // empty result, as many clients do.
    const result = message.result === undefined ? {} : message.result
    if (!result || typeof result !== 'object' || Array.isArray(result)) {
      throw new ClientError(`${method} (id ${id}): the result is not an object`)
    }
    return result
  }
}

// ---------------------------------------------------------------------------
// stdio: a child process, one message per line
// ---------------------------------------------------------------------------

// StdioTransport speaks to a server the client started: requests go to its
// stdin, answers come from its stdout, and its stderr is its log.
class StdioTransport {
  constructor (alias, command, args) {
    this.alias = alias
    this.waiting = new Map() // request id -> { resolve, reject, deadline }
    this.gone = null // why the server is gone; null while it runs
    this.exited = false
    this.child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] })
    // A command that cannot start (a typo, a missing program) does not
    // throw: it arrives as an 'error' event, and no 'exit' may follow. It
    // must fail the waiting requests at once all the same.
    this.child.on('error', (err) => this.serverGone(`could not start ${command}: ${err.message}`))
    this.exitEvent = new Promise((resolve) => this.child.on('exit', (code, signal) => {
      this.exited = true
      this.exitStatus = signal ? `killed by ${signal}` : `exited with status ${code}`
      resolve()
    }))
    this.logsEnded = new Promise((resolve) => this.child.stderr.on('close', resolve))
    // Writing to a server that is gone is an 'error' event too; without a
    // listener it would end the whole client.
    this.child.stdin.on('error', (err) => log(`${alias}: writing to the server: ${err.message}`))
    this.readLogs()
    this.readMessages()
  }

  // readLogs passes the server's stderr on to ours, a line at a time, marked
  // with the server's alias. A server's logs never go to stdout, where they
  // would break the protocol stream.
  readLogs () {
    const lines = readline.createInterface({ input: this.child.stderr, crlfDelay: Infinity })
    lines.on('line', (line) => process.stderr.write(`[${this.alias}] ${line}\n`))
  }

  // readMessages reads the server's stdout until it ends, handing every
  // message to the request that waits for it.
  //
  // readline could find the lines for us; here we take the raw chunks, to
  // see what a 'data' event really holds.
  readMessages () {
    // Chunks arrive as strings; the decoder behind setEncoding keeps a
    // character whose bytes are split between two reads whole.
    this.child.stdout.setEncoding('utf8')
    this.child.stdout.on('data', (chunk) => {
      // TODO(lesson 3), part 2: framing.
      // A read hands over the bytes the pipe holds at that moment, not a
      // message: it may stop inside one and start with the rest of the one
      // before. This splits each read on its own and drops the pieces that
      // do not parse, so a long answer, which the notes server writes in
      // 4 KiB pieces, is lost every time. Keep the bytes after the last
      // newline and put them in front of the next read; hand on only lines
      // that ended in a newline (and at the end of the stream, what is
      // left). Fixes framing and truncation.
      for (const piece of chunk.split('\n')) {
        this.handleLine(piece)
      }
    })
    this.child.stdout.on('end', () => this.stdoutEnded())
  }

  // stdoutEnded runs when the server's stdout is over: the server can answer
  // no more.
  async stdoutEnded () {
    // Wait a moment for the exit status and the last lines of stderr: they
    // say why the server is gone.
    const aMoment = new Promise((resolve) => setTimeout(resolve, 1000).unref())
    await Promise.race([Promise.all([this.exitEvent, this.logsEnded]), aMoment])
    this.serverGone(this.exited ? `the server ${this.exitStatus}` : 'the server closed its stdout')
  }

  // handleLine reads one line from the server. A line that is not a message
  // is noted and skipped: one stray line must not end the connection.
  handleLine (line) {
    line = line.trim()
    if (line === '') return
    let message
    try {
      message = JSON.parse(line)
    } catch {
      log(`${this.alias}: skipped ${line.length} characters that are not a JSON message: ${JSON.stringify(line.slice(0, 60))}`)
      return
    }
    if (!message || typeof message !== 'object' || Array.isArray(message)) {
      log(`${this.alias}: skipped a line that is not a JSON object`)
      return
    }
    // Correlation: only a message that carries an id can answer a request.
    // One without is a notification, whatever else it holds.
    if (isNotification(message)) {
      log(`${this.alias}: notification ${message.method}`)
      return
    }
    if ('method' in message) {
      log(`${this.alias}: skipped a request (${message.method}): a 2026-07-28 server sends none`)
      return
    }
    const waiter = Number.isInteger(message.id) ? this.waiting.get(message.id) : undefined
    if (!waiter) {
      // Too late (its request timed out) or never asked for: drop it.
      log(`${this.alias}: dropped a response with id ${JSON.stringify(message.id)}: no request is waiting for it`)
      return
    }
    this.waiting.delete(message.id)
    clearTimeout(waiter.deadline)
    waiter.resolve(message)
  }

  // serverGone runs when the server can answer no more. Every request still
  // waiting fails now, with the reason: no answer can come, so none should
  // sit until its deadline.
  serverGone (reason) {
    if (this.gone !== null) return
    this.gone = reason
    for (const [id, waiter] of this.waiting) {
      this.waiting.delete(id)
      clearTimeout(waiter.deadline)
      waiter.reject(new ClientError(reason))
    }
  }

  roundTrip (id, method, name, body, timeoutMs) {
    if (this.gone !== null) return Promise.reject(new ClientError(this.gone))
    return new Promise((resolve, reject) => {
      const waiter = { resolve, reject, deadline: null }
      waiter.deadline = setTimeout(() => {
        // Stop waiting, and tell the server it may stop working on it. An
        // answer that still comes finds no one waiting and is dropped.
        this.waiting.delete(id)
        const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'the client timed out' } }
        this.writeLine(JSON.stringify(cancel))
        reject(new TimeoutError())
      }, timeoutMs)
      this.waiting.set(id, waiter)
      this.writeLine(body)
    })
  }

  writeLine (text) {
    if (this.gone === null && this.child.stdin.writable) this.child.stdin.write(text + '\n')
  }

  closeInput () {
    this.child.stdin.end()
  }

  // finish waits for the server to exit until deadline, then kills it.
  // Nothing ends it for us when this program exits: a server we started and
  // forgot keeps running.
  finish (deadline) {
    if (this.exited || this.child.pid === undefined) return Promise.resolve()
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        log(`${this.alias}: still running after its stdin closed; killing it`)
        this.child.kill('SIGKILL')
      }, Math.max(0, deadline - Date.now()))
      this.child.once('exit', () => {
        clearTimeout(timer)
        resolve()
      })
    })
  }
}

// ---------------------------------------------------------------------------
// Streamable HTTP: one POST per request
// ---------------------------------------------------------------------------

// headerValue is how a value goes in Mcp-Name: as it is when it is plain
// visible ASCII, else (and also when it merely looks like the sentinel) as
// =?base64?...?= around the Base64 of its UTF-8 bytes. Header values cannot
// hold other characters.
function headerValue (value) {
  const plain = /^[\x20-\x7e]*$/.test(value) && !value.startsWith(' ') && !value.endsWith(' ') &&
    !(value.startsWith('=?base64?') && value.endsWith('?='))
  if (plain) return value
  return '=?base64?' + Buffer.from(value, 'utf8').toString('base64') + '?='
}

// HTTPTransport POSTs every request to one endpoint. Each POST has an answer
// of its own, whose end HTTP marks, so no messages need finding in a byte
// stream; the answer is one JSON message, or an event stream with the
// response in it.
class HTTPTransport {
  constructor (alias, url) {
    this.alias = alias
    let parsed
    try {
      parsed = new URL(url)
    } catch {
      parsed = null
    }
    if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
      throw new ClientError(`${JSON.stringify(url)} is not an http:// or https:// URL`)
    }
    this.url = url
  }

  async roundTrip (id, method, name, body, timeoutMs) {
    // Aborting the request also cancels it on the server's side: on HTTP,
    // closing the exchange is how a client gives up.
    const abort = new AbortController()
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      abort.abort()
    }, timeoutMs)
    const headers = {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      // Three headers repeat the body, so that a proxy can route without
      // reading it. The server checks that they agree with the body.
      'MCP-Protocol-Version': PROTOCOL_VERSION,
      'Mcp-Method': method
    }
    if (method === 'tools/call') headers['Mcp-Name'] = headerValue(name || '')
    try {
      const response = await fetch(this.url, { method: 'POST', headers, body, signal: abort.signal })
      const contentType = (response.headers.get('content-type') || '').split(';')[0].trim().toLowerCase()
      if (contentType === 'application/json') {
        // One message. An error (a 400 for headers that do not match the
        // body, say) comes this way too, with its JSON-RPC error inside.
        const text = await response.text()
        let message
        try {
          message = JSON.parse(text)
        } catch (err) {
          throw new ClientError(`the answer (${response.status}) is not a JSON-RPC message: ${err.message}`)
        }
        if (message && typeof message === 'object' && ('error' in message || answers(message, id))) return message
        throw new ClientError(`the answer (${response.status}) is not the response to request ${id}`)
      }
      if (contentType === 'text/event-stream') {
        return await this.readEventStream(response.body, id)
      }
      const snippet = (await response.text()).slice(0, 200).trim()
      throw new ClientError(`the server answered ${response.status} with Content-Type ${JSON.stringify(response.headers.get('content-type'))}: ${snippet}`)
    } catch (err) {
      if (timedOut) throw new TimeoutError()
      if (err instanceof ClientError) throw err
      // fetch hides the reason (ECONNREFUSED, say) in err.cause.
      const cause = err.cause ? `: ${err.cause.code || err.cause.message}` : ''
      throw new ClientError(`POST ${this.url}: ${err.message}${cause}`)
    } finally {
      clearTimeout(timer)
      abort.abort() // done with the exchange, whatever is left of it
    }
  }

  // readEventStream reads an event stream until it holds the response to
  // request id. Each event is a few "field: value" lines and a blank line;
  // its data lines, joined, are one JSON-RPC message. The body comes in
  // chunks that end anywhere, so the part after a chunk's last newline waits
  // for the next chunk.
  async readEventStream (body, id) {
    const decoder = new TextDecoder()
    let partial = ''
    let data = []
    let notifications = 0
    for await (const chunk of body) {
      partial += decoder.decode(chunk, { stream: true })
      if (partial.length > MAX_MESSAGE) throw new ClientError(`an event in the stream is longer than ${MAX_MESSAGE} characters`)
      const lines = partial.split('\n')
      partial = lines.pop()
      for (let line of lines) {
        if (line.endsWith('\r')) line = line.slice(0, -1)
        if (line !== '') {
          const colon = line.indexOf(':')
          const field = colon < 0 ? line : line.slice(0, colon)
          let value = colon < 0 ? '' : line.slice(colon + 1)
          if (value.startsWith(' ')) value = value.slice(1)
          if (field === 'data') data.push(value)
          continue // other fields (event, id, retry) and comments do not matter here
        }
        if (data.length === 0) continue
        const text = data.join('\n')
        data = []
        let message
        try {
          message = JSON.parse(text)
        } catch (err) {
          log(`${this.alias}: skipped an event that is not a JSON message: ${err.message}`)
          continue
        }
        if (!message || typeof message !== 'object') continue
        // TODO(lesson 3), part 4: response by id.
        // An event stream may carry notifications before the response (the
        // ticket system sends progress first) and after it. This takes the
        // first message as the response. Take the message whose id is the
        // request's; count a message without an id as a notification and
        // read on. Fixes response-by-id.
        return message
      }
    }
    // The stream is over and the response never came: the request failed,
    // and we say so now, not when its deadline passes.
    throw new ClientError(`the event stream ended before the response to request ${id}, after ${notifications} notification(s)`)
  }

  closeInput () {} // HTTP holds no process: nothing to close or wait for
  finish () { return Promise.resolve() }
}

// ---------------------------------------------------------------------------
// The namespace: several servers, one list of tools
// ---------------------------------------------------------------------------

// connect opens the transport a server's configuration asks for.
function connect (config) {
  const transport = config.url !== undefined
    ? new HTTPTransport(config.alias, config.url)
    : new StdioTransport(config.alias, config.command, config.args)
  return new Connection(config.alias, config.timeoutMs, transport)
}

// listTools asks the server for its tools.
async function listTools (conn) {
  const result = await conn.call('tools/list')
  const tools = result.tools
  if (!Array.isArray(tools) || !tools.every((t) => t && typeof t === 'object' && typeof t.name === 'string')) {
    throw new ClientError('tools/list: the result is not a list of tools')
  }
  // TODO(lesson 3), part 3: pagination.
  // tools/list answers one page. When the result has a nextCursor, there
  // is more: send tools/list again with params.cursor set to it, exactly
  // as received, and repeat until a page has no nextCursor. A short page
  // proves nothing. Fixes pagination (the notes server lists three tools,
  // two to a page).
  return tools
}

// sanitize replaces each character that is not allowed by one "_". The u
// flag makes the pattern see code points, not UTF-16 halves: one character,
// one "_".
function sanitize (text) {
  return text.replace(/[^A-Za-z0-9_-]/gu, '_')
}

// hashedName is the sanitized name cut to at most 57 characters, then "_"
// and the first six hex digits of the SHA-1 of alias::tool.
function hashedName (alias, toolName) {
  const sha1 = createHash('sha1')
  sha1.update(alias + '::' + toolName, 'utf8')
  const suffix = sha1.digest('hex').substring(0, 6)
  return sanitize('mcp__' + alias + '__' + toolName).substring(0, MAX_NAME_LENGTH - 7) + '_' + suffix
}

// namespacedName is the name a model sees for toolName of the server mounted
// as alias: mcp__alias__tool, with every character other than a letter, a
// digit, "_" or "-" made "_", and, when that is too long, cut to 57
// characters plus "_" and six hex digits of a hash, so that two long names
// that begin alike stay apart.
function namespacedName (alias, toolName) {
  const raw = sanitize(`mcp__${alias}__${toolName}`)
  return raw.length <= MAX_NAME_LENGTH ? raw : hashedName(alias, toolName)
}

// truncate keeps a result within the budget that every tool, remote or
// local, shares, and says how much was cut. A JavaScript string's length
// counts UTF-16 units, not characters, so the characters are counted one by
// one.
function truncate (text) {
  const chars = Array.from(text)
  if (chars.length <= MAX_RESULT_CHARS) return text
  const cut = chars.length - MAX_RESULT_CHARS
  return chars.slice(0, MAX_RESULT_CHARS).join('') + `\n\n[${cut} more characters were cut from this result.]`
}

// Host is every server, and the namespace built from them.
class Host {
  constructor (configs) {
    this.servers = configs.map((config) => ({ config, alias: config.alias, conn: null, error: null, tools: [] }))
    this.tools = [] // the entries in order
    this.byName = new Map() // the only way back from a name to its tool
  }

  // mount connects to every server at once, each inside its own failure
  // boundary: a server that cannot start, cannot be reached or answers
  // nonsense costs its own tools and no one else's.
  async mount () {
    await Promise.all(this.servers.map((server) => this.discover(server)))
    // The namespace follows the configuration's order, then each server's.
    for (const server of this.servers) {
      if (server.error !== null) {
        log(`server ${server.alias} is unavailable, so its tools are missing: ${server.error}`)
        continue
      }
      for (const remote of server.tools) this.add(server, remote)
    }
  }

  async discover (server) {
    try {
      server.conn = connect(server.config)
      server.tools = await listTools(server.conn)
    } catch (err) { // anything at all: this server's failure, not the host's
      server.error = (err && err.message) || String(err)
      if (server.conn !== null) {
        server.conn.transport.closeInput()
        await server.conn.transport.finish(Date.now() + CLOSE_GRACE_MS)
        server.conn = null
      }
    }
  }

  add (server, remote) {
    const alias = server.alias
    const original = remote.name
    let name = namespacedName(alias, original)
    if (this.byName.has(name)) {
      // Two tools became one name (créer_ticket and créer.ticket, say): the
      // later one takes the hashed form.
      name = hashedName(alias, original)
    }
    if (this.byName.has(name)) {
      const other = this.byName.get(name)
      log(`tool ${JSON.stringify(original)} of server ${alias} is left out: its name ${name} is taken by tool ${JSON.stringify(other.original)} of server ${other.server.alias}`)
      return
    }
    // A model picks among tools by reading their descriptions, so each one
    // names its tool and its server.
    const description = typeof remote.description === 'string' ? remote.description.trim() : ''
    const source = `(Tool ${JSON.stringify(original)} of MCP server ${JSON.stringify(alias)}.)`
    const annotations = remote.annotations
    // TODO(lesson 3), part 5: annotations.
    // readOnlyHint is the server's claim about its own tool, and a server
    // you do not control can claim anything. This trusts it and lets
    // "read-only" tools skip approval. Every remote tool needs approval:
    // set needsApproval to true whatever the annotations say. Fixes
    // annotations.
    const needsApproval = !(annotations && annotations.readOnlyHint === true)
    const entry = {
      name,
      description: description ? `${description} ${source}` : source,
      needsApproval,
      inputSchema: remote.inputSchema,
      server,
      original
    }
    this.byName.set(name, entry)
    this.tools.push(entry)
  }

  listTools () {
    return {
      tools: this.tools.map((t) => ({ name: t.name, description: t.description, needsApproval: t.needsApproval, inputSchema: t.inputSchema })),
      failedServers: this.servers.filter((s) => s.error !== null).map((s) => ({ server: s.alias, error: s.error }))
    }
  }

  // call runs the tool a model names. It never throws: whatever goes wrong
  // becomes a failed result that says what happened, so the model can try
  // something else.
  async call (name, args) {
    const entry = this.byName.get(name) // through the table, never by taking the name apart
    if (!entry) {
      let text = `No tool is named ${JSON.stringify(name)}.`
      for (const s of this.servers) {
        if (s.error !== null) text += ` Server ${s.alias} is unavailable, so its tools are missing (${s.error}).`
      }
      return { text, isError: true }
    }
    const server = entry.server
    const tool = JSON.stringify(entry.original)
    // TODO(lesson 3), part 1: the original name.
    // This sends the server the namespaced name (mcp__notes__search).
    // That name is ours, made for the model's list: the server listed the
    // tool as search, knows it by no other name, and answers that the
    // tool does not exist. Send the tool's own name, kept in the table
    // entry. Fixes original-name, two-searches, isolation, stream-break
    // and timeout-teardown.
    const params = { name: entry.name }
    if (args !== undefined && args !== null) params.arguments = args
    let result
    try {
      result = await server.conn.call('tools/call', params)
    } catch (err) {
      return { text: `Calling tool ${tool} of server ${server.alias} failed: ${err.message}`, isError: true }
    }
    const resultType = result.resultType === undefined ? 'complete' : result.resultType
    if (resultType !== 'complete') {
      // "input_required" means the server needs more from us before it can
      // finish. This client cannot supply it, and passing a half-done result
      // on as a finished one would mislead the model.
      return { text: `Tool ${tool} of server ${server.alias} did not finish: its result is of type ${JSON.stringify(resultType)}, which this client cannot continue.`, isError: true }
    }
    const content = result.content === undefined ? [] : result.content
    if (!Array.isArray(content)) {
      return { text: `Tool ${tool} of server ${server.alias} gave a result whose content is not a list.`, isError: true }
    }
    const texts = content
      .filter((b) => b && b.type === 'text' && typeof b.text === 'string')
      .map((b) => b.text)
    return { text: truncate(texts.join('\n')), isError: result.isError === true }
  }

  // close ends every server: first all stdins close, then each server has
  // until the same deadline to exit before it is killed.
  async close () {
    const deadline = Date.now() + CLOSE_GRACE_MS
    const open = this.servers.filter((s) => s.conn !== null)
    for (const s of open) s.conn.transport.closeInput()
    await Promise.all(open.map((s) => s.conn.transport.finish(deadline)))
  }
}

// ---------------------------------------------------------------------------
// The commands
// ---------------------------------------------------------------------------

// run answers one command line.
async function run (host, line) {
  let command
  try {
    command = JSON.parse(line)
  } catch (err) {
    return { error: `the line is not a JSON object with a command: ${err.message}` }
  }
  if (!command || typeof command !== 'object' || Array.isArray(command)) {
    return { error: 'the line is not a JSON object with a command' }
  }
  switch (command.command) {
    case 'list_tools':
      return host.listTools()
    case 'call_tool': {
      if (typeof command.name !== 'string') {
        return { error: 'call_tool needs "name", the tool\'s namespaced name as a string' }
      }
      const args = command.arguments
      if (args !== undefined && args !== null && (typeof args !== 'object' || Array.isArray(args))) {
        return { error: '"arguments" must be a JSON object' }
      }
      return host.call(command.name, args)
    }
    case undefined:
      return { error: 'the command has no "command"; use "list_tools" or "call_tool"' }
  }
  return { error: `unknown command ${JSON.stringify(command.command)}; use "list_tools" or "call_tool"` }
}

async function main (argv) {
  let configPath = 'servers.json'
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--config' && i + 1 < argv.length) configPath = argv[++i]
    else if (argv[i].startsWith('--config=')) configPath = argv[i].slice('--config='.length)
    else {
      log(`unexpected argument ${JSON.stringify(argv[i])}; usage: node client.js --config servers.json`)
      return 2
    }
  }
  let configs
  try {
    configs = loadConfig(configPath)
  } catch (err) {
    log(`the configuration ${configPath}: ${err.message}`)
    return 2
  }
  const host = new Host(configs)
  await host.mount()

  // One command at a time: the loop waits for each answer before it takes
  // the next line, which keeps the answers in order.
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity })
  for await (const line of lines) {
    if (line.trim() === '') continue
    const answer = await run(host, line)
    process.stdout.write(JSON.stringify(answer) + '\n')
  }
  // stdin is over: close every server, then leave.
  await host.close()
  return 0
}

main(process.argv.slice(2)).then(
  (code) => {
    // Leave once stdout has taken everything written to it.
    process.stdout.write('', () => process.exit(code))
  },
  (err) => {
    log(`failed: ${err && err.stack ? err.stack : err}`)
    process.exit(1)
  }
)
