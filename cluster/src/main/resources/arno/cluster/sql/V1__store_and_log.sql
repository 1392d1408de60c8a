-- V1: the store's documents and their versions, the change log in commit order, and the nodes.
-- Accounts, batch jobs and the rest of what nodes share come in later versions. Everything lives in
-- the schema "arno" (Schema.migrate creates it), so the database may hold other things too.
-- Paths are COLLATE "C": byte order of their UTF-8, the order the LMDB store keeps them in.

-- The head of the change log: one row, the position of the last commit. A write transaction
-- increments it as its last statement before COMMIT (ChangeLog explains why): the row lock
-- taken then is held until the commit is done, so positions are given out in commit order with no
-- gaps, and an aborted transaction gives its number back. The row is where every write of the
-- cluster queues for that short moment, and only then.
CREATE TABLE arno.log_head (
    one      boolean PRIMARY KEY DEFAULT true CHECK (one),
    position bigint  NOT NULL CHECK (position >= 0)
);
INSERT INTO arno.log_head (one, position) VALUES (true, 0);

-- Every version of a document that a commit wrote: its content as written (the XML text in
-- UTF-8, or the bytes of a binary document), its media type, whether the store keeps it as a tree
-- (XML) or as bytes, and the store paths it refers to (the store's reverse link index). A version
-- is written before its transaction takes its position, so that the big rows never wait on
-- log_head's lock: it has an id of its own and gets its position through the change that names it.
-- bytea, compressed by TOAST when that pays; large objects (streamed, never whole in memory) are to
-- be measured against it (issue 23, item 2) before binaries of hundreds of MB are stored here.
CREATE TABLE arno.document_versions (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    path       text COLLATE "C" NOT NULL,
    media_type text    NOT NULL,
    is_binary  boolean NOT NULL,
    content    bytea   NOT NULL,
    refs       text[] COLLATE "C" NOT NULL DEFAULT '{}'
);

-- One row per commit: its position, its time (the database's clock, so all nodes report the same)
-- and the node that wrote it. Every commit has at least one change.
CREATE TABLE arno.commits (
    position     bigint PRIMARY KEY,
    committed_at timestamptz NOT NULL,
    node         text NOT NULL
);

-- The change log: one row per document a commit stored or deleted, in commit order (position) and
-- in the commit's own order (seq, from 1). A put names the version it stored; a delete names none.
-- A node applies a position's rows in one LMDB transaction. Positions follow each other without
-- gaps, so a position missing below the head means the log was pruned there: a node that needs it
-- must resynchronise.
CREATE TABLE arno.changes (
    position   bigint  NOT NULL REFERENCES arno.commits (position),
    seq        integer NOT NULL CHECK (seq >= 1),
    path       text COLLATE "C" NOT NULL,
    version_id bigint REFERENCES arno.document_versions (id),
    PRIMARY KEY (position, seq)
);

-- What the store holds now: each path's current version and the position that wrote it; a path
-- deleted has no row. A new node can build its copy from this table and log_head read in one
-- snapshot, then follow the log from that position.
CREATE TABLE arno.documents (
    path       text COLLATE "C" PRIMARY KEY,
    version_id bigint NOT NULL REFERENCES arno.document_versions (id),
    position   bigint NOT NULL
);

-- The nodes of the cluster: each registers itself (its id is stable across restarts), says where
-- peers and the console reach it, the last position its copy has applied, and beats its heart.
CREATE TABLE arno.nodes (
    id        text PRIMARY KEY,
    address   text   NOT NULL,
    position  bigint NOT NULL DEFAULT 0,
    heartbeat timestamptz NOT NULL DEFAULT now(),
    started   timestamptz NOT NULL DEFAULT now()
);
