// A schema's complaints about an input, in words that name the field: "scorer: Invalid option:
// expected one of …", and "id: missing (a string)" where zod would say "Invalid input: expected
// string, received undefined" (or only "Invalid input", for a union).
import type { z } from 'zod';

/** One line per problem, each starting with the field's path when there is one. */
export function schemaProblems(error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const where = issue.path.map(String).join('.');
    // `input` is there when the schema was run with `{ reportInput: true }`.
    const missing = 'input' in issue ? issue.input === undefined : issue.message.endsWith('received undefined');
    const what = !missing
      ? issue.message
      : issue.code === 'invalid_type'
        ? `missing (${article(issue.expected)} ${issue.expected})`
        : 'missing';
    return where === '' ? what : `${where}: ${what}`;
  });
}

function article(word: string): string {
  return /^[aeiou]/.test(word) ? 'an' : 'a';
}
