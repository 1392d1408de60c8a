/**
 * Cluster mode (issue 23, "Scale-out"): several alike Arno nodes share one PostgreSQL database,
 * which is the system of record, and each keeps its own LMDB copy of the store, which Saxon
 * navigates in place. A write commits in PostgreSQL with its change-log rows; every node applies
 * the log to its copy, one LMDB transaction per PostgreSQL commit.
 *
 * <p>Threads: a {@code DataSource} (the pool) is shared by every thread; an applier owns one
 * thread and one listening connection of its own.
 */
package arno.cluster;
