// `npm start`'s first import: stops on an unsupported Node.js before anything else loads or runs.
import { readFileSync } from 'node:fs';
import { nodeVersionProblem } from './node-range.mjs';

const { engines } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const problem = nodeVersionProblem(process.versions.node, engines.node);
if (problem) {
  console.error(problem);
  process.exit(1);
}
