// A separate client process for the cross-process tests: connects with the
// options given as JSON in argv[2] (autostarting as any shim would), prints
// one JSON line `{pid}` with the daemon's pid from daemon.hello on stdout,
// closes and exits 0; on failure prints `{code}` and exits 1. The library
// itself writes nothing to stdout, so that line must be all of stdout.
import { DaemonClient, type DaemonClientOptions, isClientError } from '@memoryd/client';

const options = JSON.parse(process.argv[2] ?? '{}') as DaemonClientOptions;
const client = new DaemonClient(options);
try {
  const hello = await client.connect();
  process.stdout.write(`${JSON.stringify({ pid: hello.pid })}\n`);
  await client.close();
} catch (err) {
  process.stdout.write(`${JSON.stringify({ code: isClientError(err) ? err.code : String(err) })}\n`);
  process.stderr.write(`${(err as Error).message}\n`);
  process.exitCode = 1;
}
