// Types of worker-vars.mjs: the worker variables `npm start` takes from the shell.

/** The names of the string variables of `export interface Env { … }` in the source text of src/env.ts, in order. */
export declare function envVariableNames(source: string): string[];
/** The worker's variable names, read from src/env.ts under `root` (default: this repository). */
export declare function workerVariableNames(root?: string): string[];
/** The worker variables `env` sets (an empty value counts as unset), by name: what `npm start` passes on. */
export declare function workerVarsFromShell(
  env: Record<string, string | undefined>,
  names?: readonly string[],
): Record<string, string>;
