package arno.batch;

import java.io.InputStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.BiConsumer;

/**
 * Where jobs and reports are kept when several nodes share them (cluster mode): the record of
 * every job, which node runs it (a lease), and its report. Without one
 * ({@link BatchService#start(BatchOptions)}) the work directory's folders are the record, as on a
 * single node. With one, a node's folder is only its working copy of the jobs it runs: a job is
 * stored here when it is accepted, claimed by one node, copied into that node's folder, and its
 * report and state are sent back here each second while it runs; a job whose node stops renewing
 * its lease is claimed by another node, which resumes it from what was sent.
 *
 * <p>A job's state is the {@link Properties} of its {@code job.properties} (with {@code succeeded},
 * {@code failed} and {@code not-run} while it runs too), plus {@link #REPORT_LENGTH} and, when a
 * cancel was asked on any node, {@code cancelled}. Implementations are thread-safe; a failure to
 * reach the record is an unchecked exception ({@link arno.xml.ArnoException} with
 * {@code database-unavailable} where a client should see it).
 */
public interface SharedJobs {
    /** The state key of how many bytes of the report are kept. */
    String REPORT_LENGTH = "report-length";

    /** What a node still holds of a job it saved. */
    enum Lease {
        /** held and renewed */
        HELD,
        /** held, and a node was asked to cancel the job */
        CANCEL,
        /** another node holds it now (this one's lease expired): stop running it, write nothing more */
        LOST
    }

    /**
     * Stores an accepted job, durably, before the submitter is answered: its state, the batch as
     * submitted and, for a job that failed at once, its complete report. Not claimed by anyone.
     */
    void create(String id, int priority, Properties state, Path batch, Path report);

    /** The state of a job, or null when there is no such job. */
    Properties state(String id);

    /** How long a claim holds without being renewed ({@link #save}); a node that cannot renew for this long stops its jobs. */
    java.time.Duration lease();

    /** Every job's state, newest first. */
    List<Properties> list();

    /** Jobs accepted and waiting for a node. */
    int waiting();

    /**
     * Claims a job for this node for one lease: {@code id}, or with null the next unfinished job
     * (highest priority, then oldest) that no node holds or whose holder's lease has expired.
     * Returns its state, or null when there is none to claim.
     */
    Properties claim(String id);

    /** The batch as submitted. */
    InputStream batch(String id);

    /** The report's first {@code length} bytes, streamed. */
    InputStream report(String id, long length);

    /** The SVRL kept for input {@code index}, or null. */
    InputStream svrl(String id, long index);

    /** Hands every SVRL kept for the job to {@code each} (index, content). */
    void svrls(String id, BiConsumer<Long, InputStream> each);

    /**
     * Saves a job this node holds and renews its lease: the state, the report's bytes
     * {@code [from, to)} of {@code report} (appended after the {@code from} bytes already kept) and
     * the SVRL files written since the last save, in one transaction; nothing when the lease was
     * lost.
     */
    Lease save(String id, Properties state, Path report, long from, long to, Map<Long, Path> svrl);

    /** Gives up this node's lease of a job, so that another node may claim it at once. */
    void release(String id);

    /** Asks that a job be cancelled, by whichever node runs it; false when it has finished. */
    boolean cancel(String id, Instant at);
}
