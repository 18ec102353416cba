#!/usr/bin/env node
// Committed entry point, so `npx memoryd` resolves an executable file even
// before the build has run; the compiled code does the work.
import { main } from '../dist/bin/main.js';

main(process.argv.slice(2));
