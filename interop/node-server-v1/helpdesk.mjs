// A lesson-2 helpdesk written on the official TypeScript MCP SDK's v1 line
// (@modelcontextprotocol/sdk, pinned in package.json), the way its
// documentation shows: McpServer, registerTool with zod schemas, and
// connect on a StdioServerTransport. The same two tools, instructions, data
// and error results as node-server/helpdesk.mjs (the SDK v2 port) and
// lab/helpdesk. The interop tests grade it with lesson 2's checks
// (interop/lesson2_sdk_test.go).
//
// v1 has no stateless serving (no serveStdio, no server/discover): one
// McpServer serves the whole process, as its stdio example does.
//
// Usage: node helpdesk.mjs DATA-DIR
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import * as z from 'zod';
import { instructions, tickets, customers, ticketText, customerText, lookup } from '../helpdesk-data.mjs';

const server = new McpServer({ name: 'helpdesk', version: '0.1.0' }, { capabilities: { tools: {} }, instructions });
server.registerTool('get_ticket', {
    description: 'Returns one support ticket by its number.',
    inputSchema: z.object({ ticket_id: z.string().describe("the ticket's number, such as 2318") }),
}, async ({ ticket_id }) => lookup(tickets, 'ticket', ticket_id, ticketText, t => ({ ...t, customer: customers.get(t.customer_id) })));
server.registerTool('get_customer', {
    description: 'Returns one customer by their id.',
    inputSchema: z.object({ customer_id: z.string().describe("the customer's id, such as C-104") }),
}, async ({ customer_id }) => lookup(customers, 'customer', customer_id, customerText, c => c));

const transport = new StdioServerTransport();
transport.onerror = e => process.stderr.write(`helpdesk: ${e.message}\n`);
await server.connect(transport);
