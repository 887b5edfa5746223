#!/usr/bin/env node
// The `sundial` command: registers tsx so Node runs the TypeScript CLI as is, from any directory.
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

register({ tsconfig: fileURLToPath(new URL('../tsconfig.json', import.meta.url)) });
const { main } = await import('../lib/cli/main.ts');
await main();
