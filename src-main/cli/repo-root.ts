// The repository's root, for commands that read or build files in it. Two levels up from
// here, and equally from the bundle (dist/cli/*.mjs, see cli-build.ts), where every module
// shares one folder.
import { resolve } from 'node:path';

export const repoRoot = resolve(import.meta.dirname, '../..');
