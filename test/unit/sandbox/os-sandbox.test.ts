// The OS sandbox's command line and seccomp filter, as built (the effects are tested against
// real processes in test/integration/sandbox/cpython-escape.test.ts).
import { homedir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { limitOptions } from '../../../src-main/sandbox/os-sandbox/node-sandbox.ts';
import { bwrapArguments } from '../../../src-main/sandbox/os-sandbox/bwrap.ts';
import { cpythonProtectionLayers } from '../../../src-main/sandbox/os-sandbox/layers.ts';
import { seccompFilter } from '../../../src-main/sandbox/os-sandbox/seccomp.ts';

const spec = {
  argv: ['/usr/bin/python3', '/rlm/runtime.py'],
  readOnly: ['/opt/python', '/usr/lib/python3/dist-packages'],
  files: [{ source: '/repo/runtime.py', dest: '/rlm/runtime.py' }],
  env: { PATH: '/usr/bin:/bin', SECRET_FREE: '1' },
  extraFds: 1,
};

describe('bwrap arguments', () => {
  const args = bwrapArguments(spec, { seccomp: 4, info: 5 });
  const pairs = (flag: string): string[] => args.flatMap((a, i) => (a === flag ? [args[i + 1]!] : []));

  it('unshares every namespace, runs the program as pid 1 and as nobody, with no capabilities', () => {
    for (const flag of ['--unshare-all', '--unshare-user', '--as-pid-1', '--die-with-parent', '--new-session', '--disable-userns']) {
      expect(args).toContain(flag);
    }
    expect(pairs('--uid')).toEqual(['65534']);
    expect(pairs('--gid')).toEqual(['65534']);
    expect(pairs('--cap-drop')).toEqual(['ALL']);
    expect(args).not.toContain('--share-net');
  });

  it('binds only the system, the given paths and files, read-only; never the home folder', () => {
    expect(args).not.toContain('--bind');
    expect(pairs('--ro-bind')).toContain('/opt/python');
    // Under /usr, already bound (or re-created as a symlink) with the system.
    expect(pairs('--ro-bind')).not.toContain('/usr/lib/python3/dist-packages');
    expect(args.join(' ')).toContain('--ro-bind /repo/runtime.py /rlm/runtime.py');
    expect(args).not.toContain(homedir());
    expect(pairs('--tmpfs')).toEqual(['/tmp']);
    expect(pairs('--remount-ro')).toEqual(['/']);
  });

  it('sets the whole environment, the filter and the info descriptor, then the program', () => {
    const clear = args.indexOf('--clearenv');
    expect(clear).toBeGreaterThan(args.indexOf('--remount-ro'));
    expect(args.slice(clear + 1, clear + 7)).toEqual(['--setenv', 'PATH', '/usr/bin:/bin', '--setenv', 'SECRET_FREE', '1']);
    expect(pairs('--seccomp')).toEqual(['4']);
    expect(pairs('--info-fd')).toEqual(['5']);
    expect(args.slice(args.indexOf('--') + 1)).toEqual(spec.argv);
  });
});

describe('seccomp filter', () => {
  it('is a whole program of 8-byte instructions for x86-64 and arm64, none elsewhere', () => {
    for (const arch of ['x64', 'arm64'] as const) {
      const filter = seccompFilter(arch)!;
      expect(filter.length % 8).toBe(0);
      // Last instruction: allow (BPF_RET|BPF_K, SECCOMP_RET_ALLOW).
      expect(filter.readUInt16LE(filter.length - 8)).toBe(0x06);
      expect(filter.readUInt32LE(filter.length - 4)).toBe(0x7fff0000);
    }
    expect(seccompFilter('ia32')).toBeNull();
    expect(seccompFilter('riscv64')).toBeNull();
  });
});

describe('protection layers', () => {
  it('names the OS sandbox, the filter, the limits and the environment where bwrap works (as here)', () => {
    expect(cpythonProtectionLayers()).toEqual(['memory-limit', 'rlimits', 'seccomp', 'bwrap', 'scrubbed-env']);
  });
});

describe('the sandbox process resource limits', () => {
  const limits = (fileSize: string, openFiles: string): string =>
    [
      'Limit                     Soft Limit           Hard Limit           Units     ',
      `Max file size             ${fileSize}            ${fileSize}            bytes     `,
      `Max open files            ${openFiles}                 ${openFiles}                 files     `,
      'Max core file size        0                    unlimited            bytes     ',
    ].join('\n');

  it('asks for its own limits where this process may have them', () => {
    expect(limitOptions(limits('unlimited', '1048576'))).toEqual([
      `--fsize=${64 * 1024 * 1024}:${64 * 1024 * 1024}`,
      '--nofile=512:512',
      '--core=0:0',
    ]);
  });

  it('stays within a lower hard limit of this process (a shell’s ulimit -f), which prlimit could not raise', () => {
    expect(limitOptions(limits('16384', '256'))).toEqual(['--fsize=16384:16384', '--nofile=256:256', '--core=0:0']);
  });
});
