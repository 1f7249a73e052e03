import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Low } from 'lowdb';
import { Type } from 'typebox';
import { Compile } from 'typebox/compile';
import {
  AtomicJsonFile,
  ConversionSchema,
  DatabaseError,
  SCHEMA_VERSION,
  backupOf,
  fieldPath,
  type ConversionRecord,
} from './database.ts';

/**
 * Conversion records are kept in small lowdb files (segments) under conversions/, each for one calendar month and
 * at most SEGMENT_CAP records, so recording a conversion rewrites one small file whatever the history's size.
 */
export const SEGMENT_CAP = 100;

/** One segment: its records in the order they were made, and the conversions it counted per month (`YYYY-MM`). */
export interface SegmentData {
  schema_version: number;
  conversions: ConversionRecord[];
  usage: Record<string, number>;
}

const SegmentSchema = Type.Object({
  schema_version: Type.Literal(SCHEMA_VERSION),
  conversions: Type.Array(ConversionSchema),
  usage: Type.Record(Type.String({ pattern: '^\\d{4}-\\d{2}$' }), Type.Integer({ minimum: 0 }), {
    additionalProperties: false,
  }),
});
const segmentValidator = Compile(SegmentSchema);

/** `000012-2026-11.json`: a sequence number (the order of the segments) and the month its records belong to. */
const SEGMENT_NAME = /^(\d{6})-(\d{4}-\d{2})\.json$/;

export function segmentName(sequence: number, month: string): string {
  return `${String(sequence).padStart(6, '0')}-${month}.json`;
}

interface Segment {
  name: string;
  sequence: number;
  month: string;
  db: Low<SegmentData>;
}

/** Splits records, in their order, into segment contents (a new segment at each month and every SEGMENT_CAP records). */
export function toSegments(records: ConversionRecord[]): { name: string; data: SegmentData }[] {
  const out: { name: string; data: SegmentData }[] = [];
  let current: { name: string; month: string; data: SegmentData } | undefined;
  for (const record of records) {
    const month = record.created_at.slice(0, 7);
    if (!current || current.month !== month || current.data.conversions.length >= SEGMENT_CAP) {
      current = {
        name: segmentName(out.length + 1, month),
        month,
        data: { schema_version: SCHEMA_VERSION, conversions: [], usage: {} },
      };
      out.push(current);
    }
    current.data.conversions.push(record);
  }
  return out.map(({ name, data }) => ({ name, data }));
}

/** The conversion records of a data directory: every segment loaded, one written per change. */
export class ConversionLog {
  private records: ConversionRecord[] = [];
  /** Each record's segment, by conversion id. */
  private readonly home = new Map<string, { segment: Segment; record: ConversionRecord }>();
  private readonly usageByMonth = new Map<string, number>();
  /** The earliest created_at (ms) of the records, or undefined until worked out again (after a removal). */
  private earliest: number | undefined;

  private constructor(
    private readonly dir: string,
    private readonly segments: Segment[],
  ) {
    for (const segment of segments) {
      for (const record of segment.db.data.conversions) {
        this.records.push(record);
        this.home.set(record.conversion_id, { segment, record });
      }
      for (const [month, count] of Object.entries(segment.db.data.usage))
        this.usageByMonth.set(month, (this.usageByMonth.get(month) ?? 0) + count);
    }
  }

  /** Reads and checks every segment; a damaged one stops the start with a message naming the file and the field. */
  static async open(dir: string): Promise<ConversionLog> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const names = (await readdir(dir)).filter((name) => SEGMENT_NAME.test(name)).sort();
    const segments: Segment[] = [];
    for (const name of names) {
      const file = join(dir, name);
      const match = SEGMENT_NAME.exec(name);
      const data = checkSegment(file, await readFile(file, 'utf8'));
      segments.push({
        name,
        sequence: Number(match?.[1]),
        month: match?.[2] ?? '',
        db: new Low<SegmentData>(new AtomicJsonFile<SegmentData>(file), data),
      });
    }
    return new ConversionLog(dir, segments);
  }

  /** Every record, oldest first (the caller must not change them). */
  all(): readonly ConversionRecord[] {
    return this.records;
  }

  get(id: string): ConversionRecord | undefined {
    return this.home.get(id)?.record;
  }

  /**
   * The records created before `cutoff` (ms; a date that does not parse is never before it). The earliest date is
   * read once from every record, then kept as records come and go, so finding nothing (the retention purge before
   * each list of conversions) costs the same at 100,000 records as at 100.
   */
  createdBefore(cutoff: number): ConversionRecord[] {
    if (this.earliest === undefined) {
      let earliest = Infinity;
      for (const record of this.records) earliest = Math.min(earliest, createdMs(record));
      this.earliest = earliest;
    }
    return this.earliest < cutoff ? this.records.filter((record) => createdMs(record) < cutoff) : [];
  }

  /** Conversions this log counted in a month. */
  usage(month: string): number {
    return this.usageByMonth.get(month) ?? 0;
  }

  /** Records a conversion, counted in its month when `counted`: one segment written (the month's newest). */
  async add(record: ConversionRecord, counted: boolean): Promise<void> {
    const month = record.created_at.slice(0, 7);
    const segment = this.openSegment(month);
    const data = segment.db.data;
    const usageBefore = data.usage[month];
    data.conversions.push(record);
    if (counted) data.usage[month] = (usageBefore ?? 0) + 1;
    this.records.push(record);
    this.home.set(record.conversion_id, { segment, record });
    if (counted) this.usageByMonth.set(month, (this.usageByMonth.get(month) ?? 0) + 1);
    if (this.earliest !== undefined) this.earliest = Math.min(this.earliest, createdMs(record));
    try {
      await segment.db.write();
    } catch (error) {
      data.conversions = data.conversions.filter((c) => c !== record);
      if (counted) {
        if (usageBefore === undefined) delete data.usage[month];
        else data.usage[month] = usageBefore;
        this.usageByMonth.set(month, (this.usageByMonth.get(month) ?? 1) - 1);
      }
      this.records = this.records.filter((c) => c !== record);
      this.home.delete(record.conversion_id);
      this.earliest = undefined;
      throw error;
    }
  }

  /** Removes records (each segment holding one written once); on a failed write every segment is as it was. */
  async remove(ids: ReadonlySet<string>): Promise<ConversionRecord[]> {
    const touched = new Map<Segment, ConversionRecord[]>();
    for (const id of ids) {
      const segment = this.home.get(id)?.segment;
      if (segment) touched.set(segment, segment.db.data.conversions);
    }
    const removed = [...ids].flatMap((id) => this.home.get(id)?.record ?? []);
    if (removed.length === 0) return [];
    for (const segment of touched.keys())
      segment.db.data.conversions = segment.db.data.conversions.filter((c) => !ids.has(c.conversion_id));
    const results = await Promise.allSettled([...touched.keys()].map((segment) => segment.db.write()));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) {
      // Put back what the failed segments held; those written stay written (their records are gone for good).
      const kept: ConversionRecord[] = [];
      for (const [i, [segment, before]] of [...touched.entries()].entries()) {
        if (results[i]?.status === 'rejected') segment.db.data.conversions = before;
        else kept.push(...before.filter((c) => ids.has(c.conversion_id)));
      }
      const gone = new Set(kept);
      this.records = this.records.filter((c) => !gone.has(c));
      for (const c of kept) this.home.delete(c.conversion_id);
      this.earliest = undefined;
      throw failed.reason;
    }
    const gone = new Set(removed);
    this.records = this.records.filter((c) => !gone.has(c));
    for (const c of removed) this.home.delete(c.conversion_id);
    this.earliest = undefined;
    return removed;
  }

  /** The segment a new record of `month` goes to: the newest if it is that month's and not full, else a new one. */
  private openSegment(month: string): Segment {
    const last = this.segments.at(-1);
    if (last && last.month === month && last.db.data.conversions.length < SEGMENT_CAP) return last;
    const sequence = (last?.sequence ?? 0) + 1;
    const name = segmentName(sequence, month);
    const segment: Segment = {
      name,
      sequence,
      month,
      db: new Low<SegmentData>(new AtomicJsonFile<SegmentData>(join(this.dir, name)), {
        schema_version: SCHEMA_VERSION,
        conversions: [],
        usage: {},
      }),
    };
    this.segments.push(segment);
    return segment;
  }
}

/** Parses and checks one segment file; refuses it (a backup kept) naming the file and the first wrong field. */
function checkSegment(file: string, text: string): SegmentData {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new DatabaseError(
      file,
      `The database ${file} is not valid JSON (${(error as Error).message}); it was left as it is and ${backupOf(file)}. Repair or move it, then start again.`,
    );
  }
  if (!segmentValidator.Check(raw)) {
    const first = segmentValidator.Errors(raw)[0];
    const detail = first ? `${fieldPath(first.instancePath)} ${first.message}` : 'its shape is wrong';
    throw new DatabaseError(
      file,
      `The database ${file} is damaged: ${detail}. It was left as it is and ${backupOf(file)}. Repair or move it, then start again.`,
    );
  }
  return raw;
}

/** A record's created_at in ms; Infinity for one that does not parse (never expired, as before). */
function createdMs(record: ConversionRecord): number {
  const ms = Date.parse(record.created_at);
  return Number.isNaN(ms) ? Infinity : ms;
}
