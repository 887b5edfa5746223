// A worker sandbox's thread (worker-sandbox.ts). Node runs the TypeScript through tsx here, as in
// `npm start`, whether the platform itself runs under tsx or under the test runner.
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

register({ tsconfig: fileURLToPath(new URL('../../tsconfig.json', import.meta.url)) });
await import('./worker-sandbox-main.ts');
