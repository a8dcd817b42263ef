// An MCP session driven line by line: the official TypeScript SDK client
// starts `slipway mcp` (SLIPWAY_BIN, cwd and --root given on the command
// line), then reads one request per stdin line and answers one JSON line on
// stdout.  The SDK performs its own checks on the way: initialize and the
// protocol version, the result shapes, and every structuredContent against
// the tool's outputSchema.
//
//   node session.mjs ROOT
//   {"op":"call","name":"run","arguments":{...}}  -> {"ok":true,"result":CallToolResult}
//   {"op":"listTools"} {"op":"listResources"} {"op":"listTemplates"}
//   {"op":"read","uri":"slipway://runs/ID"} {"op":"ping"}
//   a failure                                      -> {"ok":false,"error":{code,message,data}}
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const root = process.argv[2];
const transport = new StdioClientTransport({
  command: process.env.SLIPWAY_BIN,
  args: ['mcp', '--root', root],
  cwd: root,
  env: { ...process.env },
  stderr: 'pipe',
});
let serverLog = '';
const client = new Client({ name: 'slipway-e2e', version: '1.0.0' });
await client.connect(transport);
transport.stderr?.on('data', (d) => { serverLog += d; });

const out = (doc) => process.stdout.write(JSON.stringify(doc) + '\n');
out({
  ready: true,
  server: client.getServerVersion(),
  capabilities: client.getServerCapabilities(),
  instructions: client.getInstructions(),
});

const ops = {
  call: (r) => client.callTool({ name: r.name, arguments: r.arguments }),
  listTools: () => client.listTools(),
  listResources: () => client.listResources(),
  listTemplates: () => client.listResourceTemplates(),
  read: (r) => client.readResource({ uri: r.uri }),
  ping: () => client.ping(),
};

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (!line.trim()) continue;
  const req = JSON.parse(line);
  try {
    // listTools first lets the SDK cache the output validators.
    out({ ok: true, result: await ops[req.op](req) });
  } catch (e) {
    out({ ok: false, error: { code: e.code ?? null, message: String(e.message), data: e.data ?? null } });
  }
}
await client.close();
process.stderr.write(serverLog);
