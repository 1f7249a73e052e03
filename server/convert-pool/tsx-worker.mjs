// From the sources (tests, `bin/docwright.js` on a checkout newer than its build), a worker thread does not inherit
// the main thread's TypeScript loader: this entry registers tsx in the worker, then loads the worker itself.
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
