// The lesson-2 helpdesk (factory.mjs) on the official TypeScript MCP server
// SDK v2, served on stdio with serveStdio, as its documentation shows. The
// interop tests grade it with lesson 2's checks
// (interop/lesson2_sdk_test.go).
//
// Usage: node helpdesk.mjs DATA-DIR
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { helpdesk } from './factory.mjs';

serveStdio(helpdesk, { onerror: e => process.stderr.write(`helpdesk: ${e.message}\n`) });
