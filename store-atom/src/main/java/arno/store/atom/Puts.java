package arno.store.atom;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import arno.xml.Where;

/**
 * Several resource documents stored in ONE transaction, all or nothing ({@link AtomStore#putAll}):
 * what a batch transformation wrote to {@code store:} URIs (its principal result and every
 * {@code xsl:result-document}) becomes visible at one version, or not at all.
 *
 * <p>How. Bodies are read and entries parsed on the caller's thread, then one {@link WritePath.Op}
 * applies the puts in order, entries first (so a variant may belong to an entry created by the same
 * call), each with the same rules as a single write ({@code createEntry}/{@code replaceEntry},
 * {@code putVariant} without a condition). The writer's group isolation covers one failed operation
 * that wrote nothing; a put refused after earlier puts of the same call have written is different:
 * those writes are in the group's transaction. Such a refusal is therefore raised as {@link Undo},
 * which the writer treats as a failure that may have left writes (no {@link ArnoException} inside):
 * it aborts the transaction, runs the group's other operations again in a new one, and the caller
 * gets the original refusal back. Nothing of the call is stored.
 *
 * <p>Threads: called on the caller's thread; the operation runs on the writer thread.
 */
final class Puts {
    private Puts() {
    }

    /** The private single writes of {@link AtomStore} that one put is, given to {@link #putAll} by it. */
    interface Steps {
        /** Creates the entry at exactly {@code path}, or replaces it when it exists. */
        WritePath.Applied entry(Tx tx, ResourcePath path, Entry entry);

        /** Stores the variant {@code path.extension} ({@code mediaType} null: the declared one), unconditionally. */
        WritePath.Applied variant(Tx tx, ResourcePath path, String extension, String mediaType, Body body);
    }

    /** A put ready for the writer: the entry parsed, or the variant's body spooled. */
    private record Ready(Put put, Entry entry, Body body) {
    }

    /**
     * A refusal met after earlier puts of the same call had written: carries no cause, so the
     * writer does not take it for a clean refusal, and aborts the transaction.
     */
    static final class Undo extends RuntimeException {
        final ArnoException refusal;

        Undo(ArnoException refusal) {
            super("undone, since a later put of the same call was refused: " + refusal.getMessage(), null, false, false);
            this.refusal = refusal;
        }
    }

    static List<AtomStore.Written> putAll(AtomStore atom, List<Put> puts, Function<WritePath.Op, CompletableFuture<WritePath.Done>> submit,
            Steps steps) {
        if (puts.isEmpty()) return List.of();
        Set<String> documents = new HashSet<>();
        for (Put p : puts) {
            if (!documents.add(p.document())) {
                throw ErrorMessage.WRITTEN_TWICE.error(p.document()).at(Where.at("store:" + p.document()));
            }
        }
        List<Ready> ready = new ArrayList<>(puts.size());
        try {
            for (Put p : puts) if (p.isEntry()) ready.add(prepare(atom, p));
            for (Put p : puts) if (!p.isEntry()) ready.add(prepare(atom, p));
            WritePath.Done done;
            try {
                done = WritePath.await(submit.apply(tx -> apply(tx, ready, steps)));
            } catch (Undo u) {
                throw u.refusal;
            }
            List<AtomStore.Written> written = new ArrayList<>(puts.size());
            for (Put p : puts) written.add(new AtomStore.Written(p.path(), p.document(), done.version(), done.time()));
            return written;
        } finally {
            for (Ready r : ready) if (r.body != null) r.body.close();
        }
    }

    private static Ready prepare(AtomStore atom, Put p) {
        String doc = p.document();
        if (p.isEntry()) {
            byte[] bytes = p.bytes() != null ? p.bytes() : read(p);
            return new Ready(p, atom.parseEntry(bytes, "the entry " + p.path(), "store:" + doc), null);
        }
        long max = atom.options().maxBodyBytes();
        if (p.bytes() != null && p.bytes().length > max) {
            throw ErrorCode.BODY_TOO_LARGE.error(p.bytes().length, max).at(Where.at("store:" + doc));
        }
        if (p.bytes() != null) return new Ready(p, null, Body.spool(new ByteArrayInputStream(p.bytes()), max, atom.options().spoolFolder()));
        try (InputStream in = Files.newInputStream(p.file())) {
            return new Ready(p, null, Body.spool(in, max, atom.options().spoolFolder()));
        } catch (IOException e) {
            throw ErrorMessage.PUT_BODY_UNREADABLE.error(e, doc, p.file(), e.getMessage());
        } catch (ArnoException e) {
            throw e.at(Where.at("store:" + doc));
        }
    }

    private static byte[] read(Put p) {
        try {
            return Files.readAllBytes(p.file());
        } catch (IOException e) {
            throw ErrorMessage.PUT_ENTRY_UNREADABLE.error(e, p.document(), p.file(), e.getMessage());
        }
    }

    private static WritePath.Applied apply(Tx tx, List<Ready> ready, Steps steps) {
        List<String> documents = new ArrayList<>(ready.size());
        WritePath.Applied first = null;
        for (Ready r : ready) {
            WritePath.Applied a;
            try {
                a = r.entry != null ? steps.entry(tx, r.put.path(), r.entry)
                        : steps.variant(tx, r.put.path(), r.put.extension(), r.put.mediaType(), r.body);
            } catch (RuntimeException e) {
                ArnoException refusal = ArnoException.find(e);
                if (!documents.isEmpty() && refusal != null && refusal.status() < 500) throw new Undo(refusal);
                throw e;
            }
            if (first == null) first = a;
            documents.add(r.put.document());
        }
        return new WritePath.Applied(first.path(), first.document(), List.copyOf(documents), 0);
    }
}
