// busyPollUs (ADR 0014): while a call waits for its answer the client
// polls the socket instead of sleeping, for at most the window after the
// request was sent, and sleeps once the answer is in or the window ends;
// and (ADR 0021) only while most answers come within the window.
// Read from this process's CPU time: the fake daemon in it does nothing
// while it holds an answer, so what the process burns is the client.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { DaemonClient } from '@memoryd/client';
import { MemorySearch } from '@memoryd/protocol';
import { cleanEnv, cleanupAll, tempDir, withTimeout } from '@memoryd/test-support';
import { answerHello, type FakeRequest, fakeServer } from './helpers/fake-server.js';

after(cleanupAll);

/** User plus system CPU time this process used while `during` ran, in ms. */
async function cpuWhile(during: Promise<unknown>): Promise<number> {
  const before = process.cpuUsage();
  await during;
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

/**
 * A fake daemon that answers memory.search only when told to (`release`),
 * or at once while `hold` is (or returns) false, and a client of it with
 * `busyPollUs`; both closed by `done`.
 */
async function holdingServer(busyPollUs: number | undefined, hold: boolean | (() => boolean) = true) {
  const socket = join(tempDir(), 'poll.sock');
  const held: Array<() => void> = [];
  const server = await fakeServer(socket, (req: FakeRequest, _s, reply) => {
    if (answerHello(req, reply)) return;
    if (!(typeof hold === 'function' ? hold() : hold)) reply({ jsonrpc: '2.0', id: req.id, result: { facts: [] } });
    else held.push(() => reply({ jsonrpc: '2.0', id: req.id, result: { facts: [] } }));
  });
  const client = new DaemonClient({ socket, autostart: false, env: cleanEnv(), ...(busyPollUs === undefined ? {} : { busyPollUs }) });
  await withTimeout(client.connect(), 10_000, 'connect');
  const search = () => withTimeout(client.call(MemorySearch, { agentId: 'poll', query: 'x' }), 10_000, 'search');
  const release = () => {
    for (const answer of held.splice(0)) answer();
  };
  const done = async () => {
    release();
    await client.close();
    await server.close();
  };
  return { client, search, release, done };
}

/**
 * Six searches answered 400 ms after they were sent, past a 300 ms
 * window: fewer than three quarters of the recent answers then came
 * within it (7/8 per miss: 0.67 after three, so polling was off from the
 * fourth), and polling is off.
 */
async function answerLate(search: () => Promise<unknown>, release: () => void): Promise<void> {
  for (let i = 0; i < 6; i++) {
    const call = search();
    await sleep(400);
    release();
    await call;
  }
}

describe('busy polling while a call waits', () => {
  it('polls while the answer is awaited, within the window, and sleeps once it is in', async () => {
    // A window long enough to see in CPU time: 1 s, the answer held 600 ms.
    const { search, release, done } = await holdingServer(1_000_000);
    try {
      const call = search();
      const waiting = await cpuWhile(sleep(600));
      release();
      await call;
      const afterAnswer = await cpuWhile(sleep(500));
      // Polling keeps a core busy; sleeping uses next to none. The bounds
      // are far apart so that a loaded machine cannot blur them.
      assert.ok(waiting >= 150, `${waiting} ms of CPU in the 600 ms a call waited`);
      assert.ok(afterAnswer <= 100, `${afterAnswer} ms of CPU in the 500 ms after the answer came`);
    } finally {
      await done();
    }
  });

  // [case, busyPollUs, ms the call waits before the CPU is read]
  const sleepers: Array<[string, number, number]> = [
    ['stops polling when the window ends, even while the call still waits', 200_000, 400],
    ['never polls with busyPollUs 0, and calls are answered as before', 0, 0],
  ];
  for (const [name, busyPollUs, before] of sleepers) {
    it(name, async () => {
      const { search, release, done } = await holdingServer(busyPollUs);
      try {
        const call = search();
        await sleep(before);
        const waiting = await cpuWhile(sleep(500));
        release();
        assert.deepEqual(await call, { facts: [] });
        assert.ok(waiting <= 100, `${waiting} ms of CPU in 500 ms of a call waiting, ${before} ms after it was sent`);
      } finally {
        await done();
      }
    });
  }

  it('with the default window, a client idle between calls sleeps', async () => {
    const { search, done } = await holdingServer(undefined, false);
    try {
      for (let i = 0; i < 50; i++) assert.deepEqual(await search(), { facts: [] });
      const idle = await cpuWhile(sleep(500));
      assert.ok(idle <= 100, `${idle} ms of CPU in 500 ms after the last answer`);
    } finally {
      await done();
    }
  });

  it('stops polling while answers come after the window, and polls again once they come within it', async () => {
    let hold = true;
    const { search, release, done } = await holdingServer(300_000, () => hold);
    try {
      await answerLate(search, release);
      const slow = search();
      const whileOff = await cpuWhile(sleep(280));
      release();
      await slow;
      assert.ok(whileOff <= 20, `${whileOff} ms of CPU in 280 ms of a call waiting after six slow answers`);
      // Answers at once bring the share back over three quarters (from 0.39, seven do).
      hold = false;
      for (let i = 0; i < 10; i++) assert.deepEqual(await search(), { facts: [] });
      hold = true;
      const again = search();
      const whileOn = await cpuWhile(sleep(280));
      release();
      await again;
      // Polling takes what CPU the machine gives: down to a seventh of a
      // core on a CI runner busy with the other suites (39 ms in 280),
      // against under 3 ms asleep.
      assert.ok(whileOn >= 20 && whileOn > 4 * whileOff, `${whileOn} ms of CPU in 280 ms of a call waiting after ten quick answers (${whileOff} ms before)`);
    } finally {
      await done();
    }
  });

  it('while polling is off, still polls for one request in 16', async () => {
    const { search, release, done } = await holdingServer(300_000);
    try {
      await answerLate(search, release);
      // Polling went off after the third: requests 4 to 18 sleep (7 to 18
      // here), the 19th is polled for. Each is answered after the window
      // too, so polling stays off.
      const used: number[] = [];
      for (let i = 7; i <= 19; i++) {
        const call = search();
        used.push(await cpuWhile(sleep(280)));
        await sleep(150);
        release();
        await call;
      }
      // Asleep: under 3 ms each. Polling: what CPU the machine gives, down
      // to a seventh of a core on a CI runner busy with the other suites.
      const asleep = Math.max(...used.slice(0, 12));
      assert.ok(asleep <= 20, `CPU while requests 7-18 waited: ${used.join(', ')} ms`);
      assert.ok((used[12] ?? 0) >= 20 && (used[12] ?? 0) > 4 * asleep, `CPU while request 19 waited: ${used.join(', ')} ms`);
    } finally {
      await done();
    }
  });

  for (const bad of [-1, 1.5, 1_000_001, Number.NaN]) {
    it(`busyPollUs ${bad} is refused at construction`, () => {
      assert.throws(
        () => new DaemonClient({ socket: '/tmp/never-dialled.sock', autostart: false, env: cleanEnv(), busyPollUs: bad }),
        (err: unknown) => err instanceof RangeError && /busyPollUs must be a whole number of microseconds from 0 to 1000000/.test(err.message),
      );
    });
  }
});
