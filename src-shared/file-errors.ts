// A failed file operation in words for the person who named the file, instead of Node's errno
// code (ENOENT, EISDIR…). Pure: it reads only the error's `code`, so any side may use it.

const READING: Record<string, string> = {
  ENOENT: 'no such file',
  EISDIR: 'it is a folder, not a file',
  ENOTDIR: 'a folder in its path is a file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ELOOP: 'too many symbolic links in its path',
  ENAMETOOLONG: 'its name is too long',
  EMFILE: 'too many files open in this process',
  ENFILE: 'too many files open on this system',
  EIO: 'the disk reported an input/output error',
};

const CREATING: Record<string, string> = {
  ...READING,
  ENOENT: 'its folder does not exist',
  EEXIST: 'it already exists',
  ENOSPC: 'no space left on the disk',
  EDQUOT: 'the disk quota is used up',
  EROFS: 'the file system is read-only',
  EFBIG: 'the file reached the largest size this process may write (ulimit -f)',
};

/**
 * Why reading (or, with `creating`, creating or writing) a file failed, in words; the error's
 * code or message when it is none of the common ones.
 */
export function fileErrorText(err: unknown, creating = false): string {
  const code = typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
  const words = code === undefined ? undefined : (creating ? CREATING : READING)[code];
  if (words !== undefined) return words;
  if (code !== undefined) return code;
  return err instanceof Error ? err.message : String(err);
}
