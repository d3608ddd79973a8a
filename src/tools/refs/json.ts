/** Small helpers for handling untrusted JSON without touching prototypes. */

/**
 * Adds an own data property. Plain assignment (`out[key] = v`) with key "__proto__" would replace
 * the new object's prototype instead; defineProperty always creates an ordinary own property.
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
