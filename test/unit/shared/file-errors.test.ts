import { describe, expect, it } from 'vitest';
import { fileErrorText } from '../../../src-shared/file-errors.ts';

const errno = (code: string): Error => Object.assign(new Error(`${code}: something`), { code });

describe('fileErrorText', () => {
  it('says the common reasons in words, for reading and for creating', () => {
    expect(fileErrorText(errno('ENOENT'))).toBe('no such file');
    expect(fileErrorText(errno('ENOENT'), true)).toBe('its folder does not exist');
    expect(fileErrorText(errno('EISDIR'))).toBe('it is a folder, not a file');
    expect(fileErrorText(errno('EACCES'))).toBe('permission denied');
    expect(fileErrorText(errno('ENOSPC'), true)).toBe('no space left on the disk');
    expect(fileErrorText(errno('EROFS'), true)).toBe('the file system is read-only');
  });

  it("falls back to the code, then to the error's message", () => {
    expect(fileErrorText(errno('EXDEV'))).toBe('EXDEV');
    expect(fileErrorText(new Error('the stream ended early'))).toBe('the stream ended early');
    expect(fileErrorText('plain text')).toBe('plain text');
    expect(fileErrorText(Object.assign(new Error('m'), { code: 42 }))).toBe('m');
  });
});
