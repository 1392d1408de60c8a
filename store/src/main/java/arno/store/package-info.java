/**
 * The store engine. One package, because its parts share package-private access to the record
 * layout (which is what makes navigation in place cheap); this map says where each part lives.
 *
 * <ul>
 * <li><b>Opening, transactions, versions:</b> {@link arno.store.Store} (start here),
 * {@link arno.store.StoreOptions}, {@link arno.store.Snapshot} (one consistent version, readers never
 * block the writer), {@link arno.store.WriteTransaction} (the one writer; marks),
 * {@link arno.store.Change} (the change feed), {@code Engine} (the LMDB environment and the lock
 * file), {@code Keys} (every key layout), {@link arno.store.StoreException} and
 * {@code StoreFailures} (the one mapping of LMDB's failures).</li>
 * <li><b>Writing a document:</b> {@code XmlInput} (what callers give, parsed by the one XML policy),
 * {@code DocumentWriter} (a Saxon receiver encoding records), {@code ChunkSink} (1 MiB values),
 * {@code Namebase} (names as integer codes), {@code Format} and {@code DocHeader} (the binary
 * layout), {@link arno.store.Binary} (documents that are bytes).</li>
 * <li><b>Reading a document in place:</b> {@code StoredTree} and {@code StoredNode} (Saxon's
 * {@code TreeInfo} and {@code NodeInfo}), {@code Axes} (the axis iterators), {@code Rec},
 * {@code Cursor} and {@code AttrEntry} (decoding records), {@code ChildCache},
 * {@code StoreResolver} ({@code doc('store:/…')}).</li>
 * <li><b>Per-document index:</b> {@code NameIndex} (positions by name) and
 * {@code AttributeColumns} (attribute values by element name).</li>
 * <li><b>Cross-document indexes:</b> {@code Indexer} (kept exact in every write transaction),
 * {@code PathTable} and {@link arno.store.PathCount} (the path summary),
 * {@link arno.store.IndexConfig}, {@link arno.store.IndexDefinition}, {@link arno.store.ValueIndexes},
 * {@code ValueKeys}, {@code ValueWalk}, {@code ValueLookup}, {@link arno.store.IndexHit}.</li>
 * <li><b>Search:</b> {@link arno.store.Search} ({@code collection(…)[condition]} planned),
 * {@code SearchParser}, {@code Planner}, {@link arno.store.Plan}; XQuery over a snapshot with its
 * limits is the sub-package {@code arno.store.query}.</li>
 * <li><b>Checking:</b> {@code Checker} and {@code ValueCheck} ({@code ./arno store check}).</li>
 * </ul>
 *
 * <p>Above the engine: the Atom service ({@code store-atom/}) and the HTTP API
 * ({@code store-http/}); this package imports neither, nor the servlet API.
 */
package arno.store;
