// A seccomp filter (classic BPF, as bwrap's --seccomp reads it) that leaves the sandboxed
// program its threads and nothing else that makes a process: fork, vfork, clone without
// CLONE_THREAD and clone3 are refused, so neither a subprocess nor a fork bomb can start, whatever
// uid the sandbox maps to (as root, RLIMIT_NPROC counts nothing). clone3 answers ENOSYS, which
// makes glibc's pthread_create fall back to clone, where the flags can be read. Also refused:
// the calls that reach past the namespaces (ptrace, mount, unshare, setns, bpf, keyctl…).
import { arch } from 'node:process';

const BPF_LD_W_ABS = 0x20;
const BPF_JEQ_K = 0x15;
const BPF_JGE_K = 0x35;
const BPF_JSET_K = 0x45;
const BPF_RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_KILL_PROCESS = 0x80000000;
const EPERM = 1;
const ENOSYS = 38;
const retErrno = (errno: number): number => 0x00050000 | errno;
const CLONE_THREAD = 0x00010000;
/** seccomp_data: nr at 0, arch at 4, args[0]'s low 32 bits at 16 (little-endian). */
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
const OFFSET_ARG0_LOW = 16;
/** x86_64's x32 ABI: the same calls under other numbers, refused as a whole. */
const X32_SYSCALL_BIT = 0x40000000;

interface ArchTable {
  audit: number;
  clone: number;
  clone3: number;
  /** Always refused (EPERM). */
  denied: number[];
  x32: boolean;
}

// Numbers from the kernel's syscall tables (arch/x86/entry/syscalls/syscall_64.tbl, include/uapi/asm-generic/unistd.h).
const TABLES: Partial<Record<NodeJS.Architecture, ArchTable>> = {
  x64: {
    audit: 0xc000003e,
    clone: 56,
    clone3: 435,
    // fork, vfork, ptrace, mount, umount2, pivot_root, chroot, add_key, request_key, keyctl, unshare,
    // perf_event_open, setns, process_vm_readv, process_vm_writev, bpf, userfaultfd, io_uring_*.
    denied: [57, 58, 101, 165, 166, 155, 161, 248, 249, 250, 272, 298, 308, 310, 311, 321, 323, 425, 426, 427],
    x32: true,
  },
  arm64: {
    audit: 0xc00000b7,
    clone: 220,
    clone3: 435,
    // ptrace, mount, umount2, pivot_root, chroot, add_key, request_key, keyctl, unshare,
    // perf_event_open, setns, process_vm_readv, process_vm_writev, bpf, userfaultfd, io_uring_*.
    denied: [117, 40, 39, 41, 51, 217, 218, 219, 97, 241, 268, 270, 271, 280, 282, 425, 426, 427],
    x32: false,
  },
};

type Instruction = [code: number, jt: number, jf: number, k: number];

/** The filter for this machine's architecture, or null where we have no table for it. */
export function seccompFilter(architecture: NodeJS.Architecture = arch): Buffer | null {
  const t = TABLES[architecture];
  if (!t) return null;
  const p: Instruction[] = [
    [BPF_LD_W_ABS, 0, 0, OFFSET_ARCH],
    [BPF_JEQ_K, 1, 0, t.audit],
    [BPF_RET_K, 0, 0, RET_KILL_PROCESS],
    [BPF_LD_W_ABS, 0, 0, OFFSET_NR],
  ];
  if (t.x32) p.push([BPF_JGE_K, 0, 1, X32_SYSCALL_BIT], [BPF_RET_K, 0, 0, retErrno(EPERM)]);
  p.push([BPF_JEQ_K, 0, 1, t.clone3], [BPF_RET_K, 0, 0, retErrno(ENOSYS)]);
  for (const nr of t.denied) p.push([BPF_JEQ_K, 0, 1, nr], [BPF_RET_K, 0, 0, retErrno(EPERM)]);
  // clone: a thread (CLONE_THREAD in the flags) may go, anything else may not.
  p.push(
    [BPF_JEQ_K, 0, 4, t.clone],
    [BPF_LD_W_ABS, 0, 0, OFFSET_ARG0_LOW],
    [BPF_JSET_K, 0, 1, CLONE_THREAD],
    [BPF_RET_K, 0, 0, RET_ALLOW],
    [BPF_RET_K, 0, 0, retErrno(EPERM)],
    [BPF_RET_K, 0, 0, RET_ALLOW],
  );
  const out = Buffer.alloc(p.length * 8);
  p.forEach(([code, jt, jf, k], i) => {
    out.writeUInt16LE(code, i * 8);
    out.writeUInt8(jt, i * 8 + 2);
    out.writeUInt8(jf, i * 8 + 3);
    out.writeUInt32LE(k >>> 0, i * 8 + 4);
  });
  return out;
}
