/** An error the user can fix: printed as one line, exit status 1. */
export class CliError extends Error {}
