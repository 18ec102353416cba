#!/usr/bin/env node
import { main } from '../dist/bin/main.js';

await main(process.argv.slice(2));
