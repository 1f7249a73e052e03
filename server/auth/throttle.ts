/**
 * Slows down guessing of API keys and tokens: a client (an IP address; on this loopback-only server, usually
 * 127.0.0.1 or ::1) with `limit` failed authentications within `windowMs` is blocked until the oldest of them is
 * `windowMs` old. Only failures count (a wrong, malformed or revoked key; a wrong session cookie, session link or
 * admin token), so valid clients are never slowed; while a client is blocked, keys already proven during this run
 * still work at once, and everything else gets 429 without saying whether it was right (so a block cannot be used
 * to test guesses).
 */
export class FailureThrottle {
  /** Times (ms) of each client's recent failures, oldest first, at most `limit` of them. */
  private readonly failures = new Map<string, number[]>();

  constructor(
    readonly limit = 10,
    readonly windowMs = 60_000,
    /** Clients remembered at most (the oldest are forgotten first). */
    private readonly maxClients = 10_000,
  ) {}

  private recent(client: string, now: number): number[] {
    const times = (this.failures.get(client) ?? []).filter((t) => now - t < this.windowMs);
    if (times.length === 0) this.failures.delete(client);
    else this.failures.set(client, times);
    return times;
  }

  /** Seconds until the client may try again, or 0 when it is not blocked. */
  blockedFor(client: string, now: number): number {
    const times = this.recent(client, now);
    if (times.length < this.limit) return 0;
    const oldest = times[times.length - this.limit] ?? now;
    return Math.max(1, Math.ceil((oldest + this.windowMs - now) / 1000));
  }

  /** Records a failed authentication. */
  fail(client: string, now: number): void {
    const times = this.recent(client, now);
    times.push(now);
    this.failures.delete(client);
    this.failures.set(client, times.slice(-this.limit));
    while (this.failures.size > this.maxClients) {
      const first = this.failures.keys().next().value;
      if (first === undefined) break;
      this.failures.delete(first);
    }
  }
}
