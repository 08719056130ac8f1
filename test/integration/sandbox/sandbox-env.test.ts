// Processes that run model code start without the user's environment (sandbox/sandbox-env.ts):
// the sandbox process of both REPLs, read from /proc/PID/environ while a block runs, and a
// host's session worker. The secret is in this process's environment each time, so a child that
// inherited it would show it.
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SandboxProcess } from '../../../src-main/engine/sandbox-process/sandbox-process.ts';
import { forkLauncher } from '../../../src-main/host/worker-launcher.ts';
import { osSandboxSupport } from '../../../src-main/sandbox/os-sandbox/bwrap.ts';
import { OS_SANDBOX_SWITCH } from '../../../src-main/sandbox/os-sandbox/node-sandbox.ts';
import { environmentIsScrubbed, networkVariables, sandboxEnvironment, SCRUBBED_MARKER } from '../../../src-main/sandbox/sandbox-env.ts';
import type { ReplLanguage } from '../../../src-shared/events.ts';
import type { SubcallBridge } from '../../../src-main/sandbox/types.ts';
import { fakeBridge, SITE } from './helpers.ts';

const secret = `sk-canary-${process.pid}-${Date.now()}`;
const saved = { key: process.env['OPENAI_API_KEY'], other: process.env['MY_SERVICE_TOKEN'] };

beforeAll(() => {
  process.env['OPENAI_API_KEY'] = secret;
  process.env['MY_SERVICE_TOKEN'] = secret;
});
afterAll(() => {
  for (const [name, value] of [
    ['OPENAI_API_KEY', saved.key],
    ['MY_SERVICE_TOKEN', saved.other],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

/** The environment a process was started with, as anything on the machine may read it. */
function environOf(pid: number): Record<string, string> {
  const env: Record<string, string> = {};
  for (const entry of readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')) {
    const eq = entry.indexOf('=');
    if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return env;
}

describe('sandboxEnvironment', () => {
  it('keeps what a process needs and nothing else', () => {
    const env = sandboxEnvironment({
      PATH: '/usr/bin',
      HOME: '/home/u',
      LANG: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
      RLM_STUDIO_CACHE: '/c',
      OPENAI_API_KEY: secret,
      ANTHROPIC_API_KEY: secret,
      AWS_SECRET_ACCESS_KEY: secret,
      NODE_OPTIONS: '--require /hook.js',
      HTTPS_PROXY: 'http://user:pw@proxy',
    });
    expect(env).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/u',
      LANG: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
      RLM_STUDIO_CACHE: '/c',
      NODE_OPTIONS: '',
      [SCRUBBED_MARKER]: '1',
    });
    expect(environmentIsScrubbed(env)).toBe(true);
    expect(environmentIsScrubbed({ PATH: '/usr/bin' })).toBe(false);
    expect(networkVariables({ HTTPS_PROXY: 'http://proxy', OPENAI_API_KEY: secret })).toEqual({ HTTPS_PROXY: 'http://proxy' });
  });
});

// With the OS sandbox (where bwrap works) and without it (the switch off).
const LANGUAGES: ReplLanguage[] = ['javascript', 'python'];
const MODES = [...(osSandboxSupport().ok ? [true] : []), false].flatMap((os) => LANGUAGES.map((language) => ({ language, os })));

describe.each(MODES)('the sandbox process of a $language REPL (OS sandbox: $os)', ({ language, os }) => {
  let sandbox: SandboxProcess | null = null;
  afterEach(() => {
    sandbox?.close();
    delete process.env[OS_SANDBOX_SWITCH];
  });

  it('has no API key or other variable of its parent in its environment, read while a block runs', async () => {
    if (!os) process.env[OS_SANDBOX_SWITCH] = 'off';
    sandbox = new SandboxProcess();
    const p = sandbox;
    let seen: Record<string, string> | null = null;
    // The block calls llm_query; while the sandbox process waits for the answer, read it.
    const bridge: SubcallBridge = {
      ...fakeBridge(),
      llmQuery: async () => {
        seen = environOf(p.pid!);
        return 'read';
      },
    };
    const repl = await p.replFactory(language)({ bridge, tools: {} });
    const r = await repl.execute(language === 'python' ? 'print(llm_query("x"))' : 'console.log(llm_query("x"))', SITE);
    expect(r.error).toBeNull();
    expect(r.stdout).toBe('read\n');
    expect(seen).not.toBeNull();
    const env = seen!;
    expect(Object.values(env).join('\n')).not.toContain(secret);
    expect(env['OPENAI_API_KEY']).toBeUndefined();
    expect(env['MY_SERVICE_TOKEN']).toBeUndefined();
    expect(env[SCRUBBED_MARKER]).toBe('1');
    // Inside the OS sandbox the host's PATH names nothing that is there.
    expect(env['PATH']).toBe(os ? '/usr/bin:/bin' : process.env['PATH']);
    expect(p.layers).toEqual(['isolate', 'memory-limit', ...(os ? ['rlimits', 'seccomp', 'bwrap'] : []), 'scrubbed-env']);
    expect(p.osSandboxUnavailable).toEqual(os ? null : expect.stringMatching(/turned off/));
    repl.dispose();
  });
});

describe("a host's session worker", () => {
  it('starts without the API keys of the host (they come over its channel, per session)', async () => {
    const worker = forkLauncher().launch();
    try {
      const env = environOf(worker.pid!);
      expect(Object.values(env).join('\n')).not.toContain(secret);
      expect(env[SCRUBBED_MARKER]).toBe('1');
    } finally {
      worker.kill();
      await worker.whenExited();
    }
  });
});
