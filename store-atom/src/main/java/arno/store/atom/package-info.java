/**
 * The resource model over the store: Atom entries in a hierarchy of paths ({@link arno.store.atom.ResourcePath}),
 * their variants, typed links and child collections, as the introspection documents under {@code /_model/}
 * ({@link arno.store.atom.Model}, {@link arno.store.atom.Kind}) allow.
 *
 * <p>Public: {@link arno.store.atom.AtomStore} (every write), {@link arno.store.atom.AtomOptions},
 * {@link arno.store.atom.TreeLoader} (a folder laid out like the store, loaded through the same writes),
 * {@link arno.store.atom.Put} (one resource of {@code AtomStore.putAll}, several written in one transaction, as a batch's
 * outputs are), the model types, and the shared names ({@link arno.store.atom.Atom}). The rest is the write path's inside:
 * {@code Entry} (an entry read, checked and written in its stored form), {@code Tx} (one write transaction as the
 * operations see it), {@code Writer} (the one writer thread and its group commit), {@code Naming}, {@code Body}
 * (request bodies spooled before they are queued), {@code Introspection} (the parser and the default documents), {@code Puts} (putAll's one operation).
 *
 * <p>Threads: {@code AtomStore}, {@code Model} and {@code Kind} are thread-safe (the model types are immutable).
 * Every write runs on the writer thread, inside a transaction it alone holds; callers parse and spool on their
 * own threads first and then wait for the commit. {@code TreeLoader} is used by one thread at a time.
 */
package arno.store.atom;
