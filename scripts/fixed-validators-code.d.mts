// Types of scripts/fixed-validators-code.mjs (Ajv standalone generation of the fixed schemas).
export declare const AJV_OPTIONS: Record<string, unknown>;
export declare function fixedValidatorsCode(schemas: Record<string, object>): { js: string; dts: string };
