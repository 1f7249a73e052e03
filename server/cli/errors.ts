/** An error the user can fix: printed as one line, exit status 1. */
export class CliError extends Error {}

/** The command is over with this exit status, everything already said (a batch in which some files failed). */
export class ExitStatus extends Error {
  constructor(readonly status: number) {
    super(`exit status ${String(status)}`);
  }
}
