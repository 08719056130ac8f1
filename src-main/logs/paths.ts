import { homedir } from 'node:os';
import { join } from 'node:path';

/** Where sessions are logged unless the user says otherwise: $RLM_STUDIO_RUNS, else the per-user data folder. */
export function defaultRunsDir(): string {
  const override = process.env['RLM_STUDIO_RUNS'];
  if (override) return override;
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'rlm-studio', 'runs');
  if (process.platform === 'win32') return join(process.env['APPDATA'] ?? join(homedir(), 'AppData', 'Roaming'), 'rlm-studio', 'runs');
  return join(process.env['XDG_DATA_HOME'] ?? join(homedir(), '.local', 'share'), 'rlm-studio', 'runs');
}
