-- V4: the log's retention and the nodes' heartbeats (issue 23, items 6 and 7).

-- Positions up to log_head.pruned have had their changes pruned (ChangeLog.prune): a node whose
-- copy is older than that cannot follow the log and resynchronises from the current documents.
-- The commits rows of positions that current documents still name are kept (a few small rows),
-- so that a copy rebuilt from arno.documents gives each document its commit's time.
ALTER TABLE arno.log_head ADD COLUMN pruned bigint NOT NULL DEFAULT 0 CHECK (pruned >= 0);

-- What a pruning looks for: versions no change names any more.
CREATE INDEX changes_version ON arno.changes (version_id);
CREATE INDEX documents_position ON arno.documents (position);
CREATE INDEX documents_version ON arno.documents (version_id);
-- the newest commit older than the retention time, found at each heartbeat (times grow with positions)
CREATE INDEX commits_time ON arno.commits (committed_at);

-- A node's heartbeat says more: when its copy last applied a commit, whether it is ready (and
-- why not), and the log's head it saw, so the console shows every node's lag.
ALTER TABLE arno.nodes ADD COLUMN last_apply timestamptz;
ALTER TABLE arno.nodes ADD COLUMN ready boolean NOT NULL DEFAULT false;
ALTER TABLE arno.nodes ADD COLUMN state text NOT NULL DEFAULT 'starting';
