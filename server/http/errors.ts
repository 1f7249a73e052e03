// The catalogue lives below HTTP (server/errors.ts); this re-export keeps `../errors.ts` imports of routes working.
export { ApiError, envelope, ERRORS, type ErrorCode } from '../errors.ts';
