import type { Command } from '../command.js';
import { add } from './add.js';
import { agents } from './agents.js';
import { backup } from './backup.js';
import { checkpoints } from './checkpoints.js';
import { exportCommand } from './export.js';
import { importCommand } from './import.js';
import { list } from './list.js';
import { reflect } from './reflect.js';
import { resume } from './resume.js';
import { search } from './search.js';
import { status } from './status.js';
import { stop } from './stop.js';

/** Every command, in the order `memoryctl --help` lists them. */
export const COMMANDS: readonly Command[] = [status, agents, add, search, list, resume, checkpoints, reflect, exportCommand, importCommand, backup, stop];
