// The data and texts both TypeScript helpdesks serve (node-server/ on the
// SDK v2, node-server-v1/ on the SDK's v1 line): the tickets and customers
// of the data folder named on the command line, read once, and the words of
// their tool results, the same as lab/helpdesk's. No package is imported
// here, so each helpdesk keeps its own pinned SDK and zod.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const instructions = 'Support desk for gym and studio booking software: look up a ticket by its number, or a customer by their id.';

const dir = process.argv[2];
if (!dir) {
    process.stderr.write('usage: node helpdesk.mjs DATA-DIR\n');
    process.exit(2);
}
export const tickets = new Map(JSON.parse(readFileSync(join(dir, 'tickets.json'), 'utf8')).map(t => [t.id, t]));
export const customers = new Map(JSON.parse(readFileSync(join(dir, 'customers.json'), 'utf8')).map(c => [c.id, c]));

export function ticketText(t) {
    const c = customers.get(t.customer_id) ?? {};
    return `Ticket ${t.id} (${t.status}, ${t.priority} priority): ${t.subject}\nCustomer: ${c.name}, ${c.business} (${c.id}), ${c.plan} plan\nOpened ${t.opened}, last update ${t.updated}\n${t.summary}`;
}

export function customerText(c) {
    return `Customer ${c.id}: ${c.name}, ${c.business} in ${c.city}, ${c.plan} plan since ${c.customer_since}, ${c.email}`;
}

// lookup is both tools' result: the record that key names in records, as
// text and as structured content, or an error result when there is none.
export function lookup(records, noun, key, text, structured) {
    const r = records.get(key);
    if (!r) {
        return { content: [{ type: 'text', text: `There is no ${noun} ${key}` }], isError: true };
    }
    return { content: [{ type: 'text', text: text(r) }], structuredContent: structured(r) };
}
