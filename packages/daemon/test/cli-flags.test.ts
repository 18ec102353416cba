// What `memoryd` says of a command line node:util cannot read: one line
// naming the word at fault, with balanced quotes (node:util's own message
// can leave one open, or run to three lines), and where the help is.
import { after, describe } from 'node:test';
import { cleanupAll } from '@memoryd/test-support';
import { itRefusesAsUsage } from './helpers/usage-errors.js';

after(cleanupAll);

describe('a command line that is no flags memoryd knows', () => {
  itRefusesAsUsage([
    ['an unknown flag', ['--bogus'], /^memoryd: unknown option --bogus \(see memoryd --help\)$/],
    ['an unknown flag with a value', ['--bogus=3'], /^memoryd: unknown option --bogus \(see memoryd --help\)$/],
    ['an unknown word with one dash', ['-bogus'], /^memoryd: unknown option -bogus \(see memoryd --help\)$/],
    ['a positional argument', ['extra'], /^memoryd: unexpected argument "extra": memoryd takes options only \(see memoryd --help\)$/],
    ['a value given to a switch', ['--verify=yes'], /^memoryd: --verify takes no value \(see memoryd --help\)$/],
    ['a flag whose value is missing', ['--log-level'], /^memoryd: --log-level needs a value \(see memoryd --help\)$/],
    ['a flag followed by another', ['--log-level', '--verify'], /^memoryd: --log-level needs a value \(one that starts with - is written --log-level=--verify\)/],
  ]);
});
