// The lesson-2 helpdesk as a server factory of the official TypeScript MCP
// server SDK v2 (@modelcontextprotocol/server, pinned in package.json), the
// way its documentation shows: McpServer, registerTool with zod schemas.
// The same two tools, instructions and data as lab/helpdesk. helpdesk.mjs
// serves it on stdio, helpdesk-http.mjs over Streamable HTTP.
import { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { instructions, tickets, customers, ticketText, customerText, lookup } from '../helpdesk-data.mjs';

export function helpdesk() {
    const server = new McpServer({ name: 'helpdesk', version: '0.1.0' }, { capabilities: { tools: {} }, instructions });
    server.registerTool('get_ticket', {
        description: 'Returns one support ticket by its number.',
        inputSchema: z.object({ ticket_id: z.string().describe("the ticket's number, such as 2318") }),
    }, async ({ ticket_id }) => lookup(tickets, 'ticket', ticket_id, ticketText, t => ({ ...t, customer: customers.get(t.customer_id) })));
    server.registerTool('get_customer', {
        description: 'Returns one customer by their id.',
        inputSchema: z.object({ customer_id: z.string().describe("the customer's id, such as C-104") }),
    }, async ({ customer_id }) => lookup(customers, 'customer', customer_id, customerText, c => c));
    return server;
}
