/** What the server and admin commands need, loaded on demand by the command line. */
export { loadSecret } from '../auth/secret.ts';
export { callServer, findRunningServer } from './running-server.ts';
export { loadOrCreateCertificate } from '../http/tls.ts';
export { startServer } from '../serve.ts';
export { PLAN_LIMITS, quotaOf } from '../services.ts';
export { dataFolder } from '../store/data-folder.ts';
export { parseSetting, withAdmin } from './admin.ts';
export { newSessionLink, sessionLinkLines, showSessionLink } from './session-link.ts';
