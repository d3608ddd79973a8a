/**
 * The handle every module of src/d1/ takes: the D1 database itself, or a
 * Sessions-API session on a read replica (src/http/directory.ts reads through
 * one). Writes are always given the database.
 */
export type D1 = D1Database | D1DatabaseSession;
