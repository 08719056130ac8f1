// With exactOptionalPropertyTypes an absent property differs from one set to undefined, but
// what commander and zod's `.optional()` give holds undefined where nothing was given. These
// name that looser shape and drop its undefined keys, so what is built from it has its
// optional properties absent (a spread of it then never overwrites a default with undefined).

type OptionalKeys<T> = { [K in keyof T]-?: Record<never, never> extends Pick<T, K> ? K : never }[keyof T];

/** `T` whose optional properties may also hold `undefined`. */
export type Loose<T> = { [K in Exclude<keyof T, OptionalKeys<T>>]: T[K] } & { [K in OptionalKeys<T>]?: T[K] | undefined };

/** `o` without its undefined properties: a `T`. */
export function withoutUndefined<T extends object>(o: Loose<T>): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  // The keys left are Loose<T>'s with a value: exactly T's shape.
  return out as T;
}
