// The lesson-2 helpdesk (factory.mjs) on the official TypeScript MCP server
// SDK v2, served over Streamable HTTP the way its packages document for
// plain node:http: createMcpHandler (the 2026-07-28 entry, a fresh server
// per request) wrapped once with toNodeHandler from @modelcontextprotocol/
// node, behind that package's localhost Host and Origin guards, bound to
// loopback. It listens on 127.0.0.1:$PORT, as lesson 4's grader asks, and
// adds nothing of its own: no path routing and no SIGTERM handler, which
// the SDK's examples do not show either. The interop tests grade it with
// lesson 4's checks (interop/lesson4_sdk_test.go).
//
// Usage: PORT=N node helpdesk-http.mjs DATA-DIR
import { createServer } from 'node:http';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { localhostHostValidation, localhostOriginValidation, toNodeHandler } from '@modelcontextprotocol/node';
import { helpdesk } from './factory.mjs';

const handler = toNodeHandler(createMcpHandler(helpdesk, { onerror: e => process.stderr.write(`helpdesk: ${e.message}\n`) }));
const validateHost = localhostHostValidation();
const validateOrigin = localhostOriginValidation();

createServer(async (req, res) => {
    if (!validateHost(req, res) || !validateOrigin(req, res)) return;
    await handler(req, res);
}).listen(Number(process.env.PORT), '127.0.0.1');
