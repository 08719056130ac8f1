// Policies by name, for `mock-llm --policy`. `auto` (the default) plays the eval tasks when
// a query is one of theirs and the built-in scenarios otherwise; a task's name plays that
// task for every root query (other wording), sub-LM calls and child runs as in `auto`.
import type { Policy } from '../policy.ts';
import { evalTasksPolicy } from './eval-tasks.ts';
import { scenariosPolicy } from './scenarios.ts';

export const autoPolicy: Policy = evalTasksPolicy(scenariosPolicy);

export const POLICIES = {
  auto: autoPolicy,
  scenarios: scenariosPolicy,
  sniah: evalTasksPolicy(scenariosPolicy, 'sniah'),
  oolong: evalTasksPolicy(scenariosPolicy, 'oolong'),
  'oolong-pairs': evalTasksPolicy(scenariosPolicy, 'oolong-pairs'),
  browsecomp: evalTasksPolicy(scenariosPolicy, 'browsecomp'),
} as const satisfies Record<string, Policy>;
export type PolicyName = keyof typeof POLICIES;
export const POLICY_NAMES = Object.keys(POLICIES) as PolicyName[];
