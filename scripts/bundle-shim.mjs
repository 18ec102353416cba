#!/usr/bin/env node
// Bundles the compiled shim (packages/mcp/dist/bin/main.js, from `tsc -b`)
// with everything it imports, the MCP SDK included, into one minified file,
// packages/mcp/dist/memoryd-mcp.cjs, plus a V8 code cache for it,
// packages/mcp/dist/memoryd-mcp.v8cache (see scripts/bundle-cjs.mjs). Every
// MCP client session spawns a shim, so its start-up is the user's wait:
// one file instead of hundreds of modules, and compiled code from the cache
// instead of compiling the SDK again. packages/mcp/bin/memoryd-mcp.js runs
// the bundle through dist/bundle-loader.cjs when it is current, else the
// compiled dist.
//
// The cache is made by running the bundle once through an MCP session
// (initialize, tools/list, two tool calls), so the functions that start-up
// needs are in it, then checked: V8 must accept it.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ROOT as root, bundleCjs, checkCodeCache, fail as failWith, runForCodeCache } from './bundle-cjs.mjs';

const dist = join(root, 'packages/mcp/dist');
const BUNDLE = join(dist, 'memoryd-mcp.cjs');
const CACHE = join(dist, 'memoryd-mcp.v8cache');

if (process.argv[2] === '--write-code-cache') {
  // Child mode: serve one MCP session from a fresh compile, then write the
  // code cache of what ran when the shim exits (stdin closed).
  await runForCodeCache(BUNDLE, CACHE, (entry) => entry.main(process.argv.slice(3)));
} else {
  await bundle();
  await writeCodeCache();
  checkCodeCache('bundle-shim', BUNDLE, CACHE);
}

function fail(message) {
  failWith('bundle-shim', message);
}

async function bundle() {
  // The SDK's Server builds an Ajv instance (Ajv, ajv-formats, fast-uri: a
  // third of the bundle) only to check elicitation answers, and only when it
  // is given no validator of its own. The shim gives it one (it never
  // elicits; see packages/mcp/src/server.ts), so the bundle replaces the Ajv
  // provider with a stub that fails loudly if anything ever constructs it.
  const AJV_PROVIDER = /[\\/]@modelcontextprotocol[\\/]sdk[\\/]dist[\\/]esm[\\/]validation[\\/]ajv-provider\.js$/;
  let stubbed = false;
  const withoutAjv = {
    name: 'memoryd-without-ajv',
    setup(b) {
      b.onLoad({ filter: AJV_PROVIDER }, () => {
        stubbed = true;
        return {
          loader: 'js',
          contents:
            'export class AjvJsonSchemaValidator { constructor() { ' +
            "throw new Error('memoryd-mcp bundle: Ajv is left out; pass a jsonSchemaValidator to Server'); } }",
        };
      });
    },
  };
  // tools/list is answered from a JSON literal made here from the tools'
  // TypeBox types (packages/mcp/src/catalog.ts), so start-up loads neither
  // TypeBox nor the tools; they come with the first tool call.
  const { TOOL_CATALOG } = await import(pathToFileURL(join(dist, 'catalog.js')).href);
  const CATALOG = /[\\/]packages[\\/]mcp[\\/]dist[\\/]catalog\.js$/;
  let catalogued = false;
  const prebuiltCatalog = {
    name: 'memoryd-prebuilt-catalog',
    setup(b) {
      b.onLoad({ filter: CATALOG }, () => {
        catalogued = true;
        return { loader: 'js', contents: `export const TOOL_CATALOG = ${JSON.stringify(TOOL_CATALOG)};` };
      });
    },
  };
  // The ESM bundle of earlier builds: the bin no longer reads it.
  rmSync(join(dist, 'memoryd-mcp.mjs'), { force: true });
  await bundleCjs({ entry: 'packages/mcp/dist/bin/main.js', outfile: BUNDLE, cacheFile: CACHE, plugins: [withoutAjv, prebuiltCatalog] });
  if (!catalogued) fail('packages/mcp/dist/catalog.js was not in the bundle; update CATALOG in scripts/bundle-shim.mjs');
  if (!stubbed) {
    // The pinned SDK moved its Ajv provider: the bundle would silently grow
    // and slow down. Look at the SDK's Server and update AJV_PROVIDER.
    fail('the SDK Ajv provider was not found; update AJV_PROVIDER in scripts/bundle-shim.mjs');
  }
}

/** Runs this script in child mode and drives one MCP session through it (bounded). */
async function writeCodeCache() {
  const socket = join(tmpdir(), `memoryd-bundle-${process.pid}.sock`);
  const child = spawn(
    process.execPath,
    [fileURLToPath(import.meta.url), '--write-code-cache', '--socket', socket, '--no-autostart'],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const send = (m) => child.stdin.write(JSON.stringify(m) + '\n');
  const exited = new Promise((resolve) => child.once('close', resolve));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  let buf = '';
  child.stdout.setEncoding('utf8').on('data', (d) => {
    buf += d;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const id = JSON.parse(buf.slice(0, nl)).id;
      buf = buf.slice(nl + 1);
      if (id === 1) {
        send({ jsonrpc: '2.0', method: 'notifications/initialized' });
        send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
      } else if (id === 2) {
        send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'memory_add', arguments: { agent_id: 'A' } } });
      } else if (id === 3) {
        send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'memory_search', arguments: { agent_id: 'A', query: 'q' } } });
      } else if (id === 4) {
        child.stdin.end();
      }
    }
  });
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bundle-shim', version: '0' } },
  });
  const code = await exited;
  clearTimeout(timer);
  if (code !== 0) fail(`the code-cache run exited with ${code}`);
}
