import type Database from 'better-sqlite3';
import { openPrivateSqlite, writingTo } from '@funnel/eventstore';
import type { Doc } from '../read-store.port';

/** What a persistent collection keeps on disk: its documents, loaded once, and each write's changed documents. */
export interface CollectionJournal {
  load(): Doc[];
  /** Stores the documents a write changed (null: deleted), all or none; throws when the storage refuses (nothing stored). */
  write(changes: readonly (readonly [id: string, doc: Doc | null])[]): void;
}

/**
 * The embedded read store's persistent collections (see CollectionOptions.persistent) in one SQLite
 * file (WAL, synchronous=NORMAL: a write survives a crash of the process once it returned), one row
 * per document, as JSON in which a Date is `{"$date": <ms>}`, so it reads back as it was written
 * (Dates stay Dates, as in MongoDB).
 */
export class ReadStateFile {
  private readonly db: Database.Database;
  private readonly selectCollection: Database.Statement<[string], { id: string; document: string }>;
  private readonly upsert: Database.Statement<[string, string, string]>;
  private readonly remove: Database.Statement<[string, string]>;
  private readonly writeChanges: Database.Transaction<(collection: string, changes: readonly (readonly [string, Doc | null])[]) => void>;
  private closed = false;

  constructor(filename: string) {
    this.db = openPrivateSqlite(filename);
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS documents (
        collection TEXT NOT NULL,
        id         TEXT NOT NULL,
        document   TEXT NOT NULL,
        PRIMARY KEY (collection, id)
      ) WITHOUT ROWID`);
    this.selectCollection = this.db.prepare('SELECT id, document FROM documents WHERE collection = ?');
    this.upsert = this.db.prepare(
      'INSERT INTO documents (collection, id, document) VALUES (?, ?, ?) ON CONFLICT (collection, id) DO UPDATE SET document = excluded.document',
    );
    this.remove = this.db.prepare('DELETE FROM documents WHERE collection = ? AND id = ?');
    this.writeChanges = this.db.transaction((collection, changes) => {
      for (const [id, doc] of changes) {
        if (doc) this.upsert.run(collection, id, encodeDocument(doc));
        else this.remove.run(collection, id);
      }
    });
  }

  journal(collection: string): CollectionJournal {
    return {
      load: () => this.selectCollection.all(collection).map((row) => decodeDocument(row.document)),
      write: (changes) => {
        if (this.closed) throw new Error(`read store closed: the write to ${collection} was not stored`);
        writingTo('read state', () => this.writeChanges(collection, changes));
      },
    };
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
  }
}

/** JSON of a document, its Dates tagged (JSON would make them strings). */
export function encodeDocument(doc: Doc): string {
  return JSON.stringify(doc, function (this: Record<string, unknown>, key: string, value: unknown) {
    const raw = this[key];
    return raw instanceof Date ? { $date: raw.getTime() } : value;
  });
}

export function decodeDocument(text: string): Doc {
  return JSON.parse(text, (_key, value: unknown) => (isDateTag(value) ? new Date(value.$date) : value)) as Doc;
}

function isDateTag(value: unknown): value is { $date: number } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === '$date' && typeof (value as { $date: unknown }).$date === 'number';
}
