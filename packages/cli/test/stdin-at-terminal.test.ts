// A command that reads stdin says so first when stdin is a terminal
// (issue 39): `memoryctl save alice` at a prompt would otherwise wait
// without a word. No terminal can be had in a test run, so the commands
// run in this process with a context whose stdin is a terminal (the
// `stdinIsTTY` main gives them from isatty(0)) and a real daemon.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { DaemonClient } from '@memoryd/client';
import { CheckpointResume } from '@memoryd/protocol';
import { cleanupAll, type DaemonHandle, startDaemon } from '@memoryd/test-support';
import type { CommandContext } from '../dist/command.js';
import { importCommand } from '../dist/commands/import.js';
import { save } from '../dist/commands/save.js';

after(cleanupAll);

describe('stdin at a terminal', () => {
  let d: DaemonHandle;
  let client: DaemonClient;
  before(async () => {
    d = await startDaemon();
    client = new DaemonClient({ socket: d.socket, autostart: false });
  });
  after(async () => {
    await client.close();
    await d.stop();
  });

  /** A context for `argv` whose stdin holds `input`; what the command prints is collected. */
  function context(argv: string[], input: string, stdinIsTTY: boolean) {
    const printed = { out: [] as string[], err: [] as string[] };
    const ctx: CommandContext = {
      argv,
      json: false,
      client: () => client,
      connection: { socket: d.socket, autostart: false },
      out: (text) => void printed.out.push(text),
      err: (text) => void printed.err.push(text),
      stderrIsTTY: false,
      stdinIsTTY,
      stdin: () => Readable.from([input]),
    };
    return { ctx, printed };
  }

  it('save AGENT says on stderr that it reads the state from stdin and how to end it, then saves it', async () => {
    for (const argv of [['ann'], ['ann', '-']]) {
      const { ctx, printed } = context(argv, '{"step": 5}', true);
      assert.equal(await save.run(ctx), 0);
      assert.deepEqual(printed.err, ['memoryctl save: reading the state (a JSON object) from stdin; end it with Ctrl-D, or give STATE_FILE']);
      assert.match(printed.out.join(''), /^Saved checkpoint \S+ for agent "ann"\.$/);
      const resumed = await client.call(CheckpointResume, { agentId: 'ann' });
      assert.deepEqual('checkpoint' in resumed ? resumed.checkpoint.state : resumed, { step: 5 });
    }
  });

  it('from a pipe it says nothing', async () => {
    const { ctx, printed } = context(['bob'], '{"step": 1}', false);
    assert.equal(await save.run(ctx), 0);
    assert.deepEqual(printed.err, []);
  });

  it('import without FILE says so too', async () => {
    const header = JSON.stringify({ type: 'memoryd-export', version: 1, createdAt: new Date().toISOString(), daemonVersion: 'test' });
    const { ctx, printed } = context([], `${header}\n`, true);
    assert.equal(await importCommand.run(ctx), 0);
    assert.deepEqual(printed.err, ['memoryctl import: reading an export file from stdin; end it with Ctrl-D, or give FILE']);
    assert.deepEqual(printed.out, ['Imported 0 records, skipped 0 already there, rejected 0.']);
  });
});
