-- V3: batch jobs and their reports (issue 23, items 2 and 8). A job submitted to any node is
-- stored here before the submitter is answered, claimed by one node at a time with a lease, and its
-- report is appended here in order as it runs; every node reads jobs and reports from here.
-- PgJobs (arno.cluster) reads and writes these tables.

-- One row per job. state: the job's properties (the text of its job.properties: name, kind,
-- stylesheet, counters, times, ...); status copied out of it for the queries. owner_node and
-- owner_token name the node process that holds the job (a token per process, so a restarted node
-- never mistakes an old lease for its own) until lease_until (the database's clock, so nodes'
-- clocks do not matter); a node renews it each second while it runs the job. cancel_at: a cancel
-- asked on any node, which the holder sees at its next renewal. report_length: the bytes of the
-- report kept in batch_report, always a whole number of entries.
CREATE TABLE arno.batch_jobs (
    id            text PRIMARY KEY,
    seq           bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    priority      integer NOT NULL,
    status        text    NOT NULL CHECK (status IN ('QUEUED', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED')),
    state         text    NOT NULL,
    batch         bytea   NOT NULL,
    owner_node    text,
    owner_token   text,
    lease_until   timestamptz,
    cancel_at     text,
    report_length bigint  NOT NULL DEFAULT 0,
    created_at    timestamptz NOT NULL DEFAULT now()
);
-- The claim's search: unfinished jobs, highest priority first, then oldest.
CREATE INDEX batch_jobs_unfinished ON arno.batch_jobs (priority DESC, seq) WHERE status IN ('QUEUED', 'RUNNING');

-- The report in pieces, each the entries one save sent, at its byte offset in the report. The pieces
-- of a job are contiguous (a piece is appended at report_length, under the job row's lock).
CREATE TABLE arno.batch_report (
    job    text   NOT NULL REFERENCES arno.batch_jobs (id) ON DELETE CASCADE,
    offset_at bigint NOT NULL,
    bytes  bytea  NOT NULL,
    PRIMARY KEY (job, offset_at)
);

-- The SVRL of each input of a Schematron job (GET /batch/jobs/ID/svrl/N).
CREATE TABLE arno.batch_svrl (
    job     text   NOT NULL REFERENCES arno.batch_jobs (id) ON DELETE CASCADE,
    input   bigint NOT NULL,
    content bytea  NOT NULL,
    PRIMARY KEY (job, input)
);
