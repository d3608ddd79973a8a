import { buildApp } from "./http/app";

export { Session } from "./session/session";

export default buildApp();
