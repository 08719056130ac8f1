import { describe, expect, it } from 'vitest';
import { parseChatLine } from '../../../src-main/cli/commands/chat.ts';

describe('chat input lines', () => {
  it('reads questions, commands and their arguments', () => {
    expect(parseChatLine('  What is the total?  ')).toEqual({ kind: 'question', text: 'What is the total?' });
    expect(parseChatLine('')).toEqual({ kind: 'empty' });
    expect(parseChatLine('   ')).toEqual({ kind: 'empty' });
    expect(parseChatLine(':help')).toEqual({ kind: 'help' });
    expect(parseChatLine(':q')).toEqual({ kind: 'quit' });
    expect(parseChatLine(':exit')).toEqual({ kind: 'quit' });
    expect(parseChatLine(':context  data/my file.json')).toEqual({ kind: 'context', path: 'data/my file.json' });
    expect(parseChatLine(':c notes.txt')).toEqual({ kind: 'context', path: 'notes.txt' });
  });

  it('names what is wrong with a bad command, and lets a question start with a colon', () => {
    expect(parseChatLine(':context')).toEqual({ kind: 'bad', message: ':context needs a file: :context FILE' });
    expect(parseChatLine(':nope x')).toEqual({ kind: 'bad', message: 'unknown command :nope (:help lists them)' });
    expect(parseChatLine('::) is a smiley?')).toEqual({ kind: 'question', text: ':) is a smiley?' });
  });
});
