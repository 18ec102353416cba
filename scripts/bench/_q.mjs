import { DaemonClient } from '@memoryd/client';
import { MemorySearch } from '@memoryd/protocol';
const c = new DaemonClient({ socket: process.argv[2], autostart: false });
const qs = process.argv.slice(3);
for (const q of qs) {
  const ts = [];
  for (let i = 0; i < 30; i++) { const t = performance.now(); await c.call(MemorySearch, { agentId: 'bench-main', query: q, limit: 10 }); ts.push(performance.now() - t); }
  ts.sort((a, b) => a - b);
  console.log(q, 'min', ts[0].toFixed(3), 'med', ts[15].toFixed(3));
}
await c.close();
