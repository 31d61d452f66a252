import type {
  CompiledQuery,
  DatabaseConnection,
  DatabaseIntrospector,
  Dialect,
  DialectAdapter,
  Driver,
  Kysely,
  QueryCompiler,
  QueryResult,
  TransactionSettings,
} from 'kysely';

/**
 * A Kysely dialect that hands every failure of its inner one to `onError` (which may tag it, see
 * markDbFailure) before the caller sees it: connecting, queries, streams, commits. The queries and
 * their results are untouched.
 */
export class ObservedDialect implements Dialect {
  constructor(
    private readonly inner: Dialect,
    private readonly onError: (err: unknown) => void,
  ) {}

  createDriver(): Driver {
    return new ObservedDriver(this.inner.createDriver(), this.onError);
  }

  createQueryCompiler(): QueryCompiler {
    return this.inner.createQueryCompiler();
  }

  createAdapter(): DialectAdapter {
    return this.inner.createAdapter();
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's own signature
  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return this.inner.createIntrospector(db);
  }
}

/** The inner driver's connection, observed; the inner driver gets its own object back. */
class ObservedConnection implements DatabaseConnection {
  constructor(
    readonly inner: DatabaseConnection,
    private readonly onError: (err: unknown) => void,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    // Awaited inside the try: SQLite's connection throws synchronously.
    try {
      return await this.inner.executeQuery<R>(query);
    } catch (err) {
      return this.fail(err);
    }
  }

  async *streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    try {
      yield* this.inner.streamQuery<R>(query, chunkSize);
    } catch (err) {
      this.fail(err);
    }
  }

  fail(err: unknown): never {
    this.onError(err);
    throw err;
  }
}

class ObservedDriver implements Driver {
  constructor(
    private readonly inner: Driver,
    private readonly onError: (err: unknown) => void,
  ) {}

  private async observe<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      this.onError(err);
      throw err;
    }
  }

  init(): Promise<void> {
    return this.observe(() => this.inner.init());
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new ObservedConnection(await this.observe(() => this.inner.acquireConnection()), this.onError);
  }

  beginTransaction(c: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.observe(() => this.inner.beginTransaction(unwrap(c), settings));
  }

  commitTransaction(c: DatabaseConnection): Promise<void> {
    return this.observe(() => this.inner.commitTransaction(unwrap(c)));
  }

  async rollbackTransaction(c: DatabaseConnection): Promise<void> {
    try {
      await this.observe(() => this.inner.rollbackTransaction(unwrap(c)));
    } catch (err) {
      // SQLite rolls a transaction back by itself on some failures (SQLITE_FULL, an I/O error):
      // what was asked for is done, and the caller gets the failure that caused it, not this one.
      if (!isAlreadyRolledBack(err)) throw err;
    }
  }

  savepoint(c: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    return this.observe(() => this.innerSavepoints().savepoint(unwrap(c), name, compile));
  }

  rollbackToSavepoint(c: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    return this.observe(() => this.innerSavepoints().rollbackToSavepoint(unwrap(c), name, compile));
  }

  releaseSavepoint(c: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    return this.observe(() => this.innerSavepoints().releaseSavepoint(unwrap(c), name, compile));
  }

  /** Every engine here has savepoints; a driver without them fails as Kysely itself would. */
  private innerSavepoints(): Required<Pick<Driver, 'savepoint' | 'rollbackToSavepoint' | 'releaseSavepoint'>> {
    const { savepoint, rollbackToSavepoint, releaseSavepoint } = this.inner;
    if (!savepoint || !rollbackToSavepoint || !releaseSavepoint) throw new Error('The driver does not support savepoints.');
    return {
      savepoint: savepoint.bind(this.inner),
      rollbackToSavepoint: rollbackToSavepoint.bind(this.inner),
      releaseSavepoint: releaseSavepoint.bind(this.inner),
    };
  }

  releaseConnection(c: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(unwrap(c));
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

function isAlreadyRolledBack(err: unknown): boolean {
  const { code, message } = err as { code?: unknown; message?: unknown };
  return code === 'SQLITE_ERROR' && typeof message === 'string' && message.includes('no transaction is active');
}

function unwrap(c: DatabaseConnection): DatabaseConnection {
  return c instanceof ObservedConnection ? c.inner : c;
}
