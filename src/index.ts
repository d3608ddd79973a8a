import { buildApp } from "./http/app";

export { RateLimiter } from "./ratelimit/rate-limiter";
export { Session } from "./session/session";

export default buildApp();
