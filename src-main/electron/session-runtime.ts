// Where the desktop app finds the Node that runs its host and session workers, and the
// bundles that Node runs. Electron boots its Node processes from a startup snapshot that
// isolated-vm cannot share a process with, so no Electron process runs a sandbox: the host
// and its workers run in the project's own Node 24, shipped inside the packaged app
// (electron-builder.yml `extraResources`: dist/node → resources/node, staged by
// `npm run build:electron`) or, in a checkout, the Node that bin/rlm-studio provisions.
// No Electron import: main.ts passes in what it knows of the app, tests pass stand-ins.
import { existsSync } from 'node:fs';
import { join, sep } from 'node:path';

/** What the main process knows of itself: Electron's `app` and `process.resourcesPath`. */
export interface ShellInfo {
  /** `app.isPackaged` */
  isPackaged: boolean;
  /** `process.resourcesPath`: the packaged app's resources folder. */
  resourcesPath: string;
  /** The folder of the running main bundle (`import.meta.dirname` of main.mjs). */
  bundleDir: string;
  /** The repository (`app.getAppPath()` when not packaged). */
  appPath: string;
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  arch: string;
}

export interface SessionRuntime {
  /** The Node binary that runs the host process (and, forked by it, every session worker). */
  node: string;
  hostEntry: string;
  workerEntry: string;
}

/** The environment variable by which `rlm-studio start` hands its own Node 24 to the shell. */
export const NODE_ENV_VAR = 'RLM_STUDIO_NODE';

export class SessionRuntimeError extends Error {
  override name = 'SessionRuntimeError';
}

/** The packaged app's Node, at resources/node as electron-builder.yml puts it. */
export function bundledNodePath(resourcesPath: string, platform: NodeJS.Platform): string {
  return platform === 'win32' ? join(resourcesPath, 'node', 'node.exe') : join(resourcesPath, 'node', 'bin', 'node');
}

/**
 * A path inside app.asar, as the same file outside it: Node (unlike Electron) cannot read
 * an asar archive, so what it runs is unpacked (electron-builder.yml `asarUnpack`).
 */
function unpackedPath(path: string): string {
  return path.replace(`${sep}app.asar${sep}`, `${sep}app.asar.unpacked${sep}`);
}

/** The Node bin/rlm-studio provisions into .runtime/ (bin/lib/node-env.sh's layout). */
function provisionedNodePath(appPath: string, platform: NodeJS.Platform, arch: string): string {
  return join(appPath, '.runtime', 'node_modules', 'node', 'node_modules', `node-${platform}-${arch}`, 'bin', 'node');
}

/** Throws a SessionRuntimeError that says what is missing and what to do. */
export function sessionRuntime(shell: ShellInfo): SessionRuntime {
  const dir = unpackedPath(shell.bundleDir);
  const hostEntry = join(dir, 'host-process.mjs');
  const workerEntry = join(dir, 'worker.mjs');
  let node: string;
  if (shell.isPackaged) {
    node = bundledNodePath(shell.resourcesPath, shell.platform);
    if (!existsSync(node))
      throw new SessionRuntimeError(
        `The Node runtime that runs RLM Studio's sessions is missing from this installation (expected at ${node}). ` +
          'Reinstall the app; a package built without it lacks `npm run build:electron` (which stages dist/node) before electron-builder.',
      );
  } else {
    const given = shell.env[NODE_ENV_VAR];
    const provisioned = provisionedNodePath(shell.appPath, shell.platform, shell.arch);
    if (given) {
      if (!existsSync(given)) throw new SessionRuntimeError(`${NODE_ENV_VAR} names ${given}, which does not exist.`);
      node = given;
    } else if (existsSync(provisioned)) {
      node = provisioned;
    } else {
      throw new SessionRuntimeError(
        `No Node 24 to run sessions in: ${NODE_ENV_VAR} is not set and ${provisioned} does not exist. ` +
          'Start the app with ./bin/rlm-studio start (it provisions Node 24), or set RLM_STUDIO_NODE to a Node 24 binary.',
      );
    }
  }
  for (const entry of [hostEntry, workerEntry])
    if (!existsSync(entry))
      throw new SessionRuntimeError(
        `${entry} is missing: ${shell.isPackaged ? 'the package does not unpack the host and worker bundles (electron-builder.yml asarUnpack)' : 'run npm run build:electron'}.`,
      );
  return { node, hostEntry, workerEntry };
}
