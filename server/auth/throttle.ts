/**
 * Bounds failed authentications (wrong, malformed or revoked keys; wrong admin tokens or session links) without ever
 * standing in the way of a valid credential: the caller checks the credential first and asks the throttle only
 * when it failed. Two token buckets decide whether a failure is answered plainly (401) or with 429 and Retry-After:
 * one per presented prefix (the first characters of what was sent, so one misconfigured client retrying the same
 * wrong key backs off without using up everybody's allowance) and one global (so guessing from many source
 * addresses, 127.0.0.2 … 127.0.0.50 or a whole LAN, is bounded all the same). Keys carry about 190 random bits: the
 * bound is about log noise and work, not secrecy.
 */
export interface BucketSize {
  /** Failures allowed at once. */
  burst: number;
  /** Failures allowed per minute once the burst is spent. */
  perMinute: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export const DEFAULT_THROTTLE = {
  perPrefix: { burst: 10, perMinute: 10 },
  global: { burst: 60, perMinute: 60 },
} as const satisfies { perPrefix: BucketSize; global: BucketSize };

export class FailureThrottle {
  private readonly buckets = new Map<string, Bucket>();
  private readonly global: Bucket;

  constructor(
    private readonly sizes: { perPrefix: BucketSize; global: BucketSize } = DEFAULT_THROTTLE,
    /** Prefixes remembered at most (the least recently failed are forgotten first). */
    private readonly maxPrefixes = 10_000,
  ) {
    this.global = { tokens: sizes.global.burst, at: 0 };
  }

  /** Refills a bucket for the time since it was last used. */
  private refill(bucket: Bucket, size: BucketSize, now: number): void {
    bucket.tokens = Math.min(size.burst, bucket.tokens + ((now - bucket.at) * size.perMinute) / 60_000);
    bucket.at = now;
  }

  /** Seconds until a bucket holds a whole token again. */
  private static wait(bucket: Bucket, size: BucketSize): number {
    return Math.max(1, Math.ceil(((1 - bucket.tokens) * 60) / size.perMinute));
  }

  /**
   * Records a failed authentication presented as `prefix`: 0 when it may be answered as a plain failure, else the
   * seconds to wait (answer 429 with Retry-After). A failure refused with 429 uses up no allowance.
   */
  fail(prefix: string, now: number): number {
    const bucket = this.buckets.get(prefix) ?? { tokens: this.sizes.perPrefix.burst, at: now };
    this.refill(bucket, this.sizes.perPrefix, now);
    this.refill(this.global, this.sizes.global, now);
    // Most recently failed last, so the oldest are forgotten first.
    this.buckets.delete(prefix);
    this.buckets.set(prefix, bucket);
    while (this.buckets.size > this.maxPrefixes) {
      const first = this.buckets.keys().next().value;
      if (first === undefined) break;
      this.buckets.delete(first);
    }
    if (bucket.tokens < 1) return FailureThrottle.wait(bucket, this.sizes.perPrefix);
    if (this.global.tokens < 1) return FailureThrottle.wait(this.global, this.sizes.global);
    bucket.tokens -= 1;
    this.global.tokens -= 1;
    return 0;
  }
}
