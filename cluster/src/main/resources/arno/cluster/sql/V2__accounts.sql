-- V2: the accounts of the store API, the batch service and the console, shared by every node, and
-- the failed logins counted across nodes (PgAccounts; the single node keeps both in its accounts
-- file and its memory, Accounts and LoginThrottle in the xml module).

-- One row per account: the fields of a line of the accounts file
-- (name:pbkdf2-sha256:iterations:salt:hash:roles), never a password, and when the row last changed.
CREATE TABLE arno.accounts (
    name       text COLLATE "C" PRIMARY KEY,
    scheme     text    NOT NULL CHECK (scheme = 'pbkdf2-sha256'),
    iterations integer NOT NULL CHECK (iterations > 0),
    salt       text    NOT NULL,
    hash       text    NOT NULL,
    roles      text    NOT NULL,
    changed_at timestamptz NOT NULL DEFAULT now()
);

-- One row: a counter every change of arno.accounts increments in its transaction. Each login reads
-- it (one row by its primary key) and reads the accounts again when it moved, so a password changed
-- or an account removed on one node holds on every node from the next request; a change locks this
-- row first, so writers of accounts queue here and none loses another's change.
CREATE TABLE arno.accounts_head (
    one     boolean PRIMARY KEY DEFAULT true CHECK (one),
    changes bigint  NOT NULL CHECK (changes >= 0)
);
INSERT INTO arno.accounts_head (one, changes) VALUES (true, 0);

-- Failed logins, counted across nodes with LoginThrottle's policy: one row per key, an account name
-- from a client's network ('n ' and a hash of both) or a network ('a ' and the network), its decayed
-- score as of its last failure, until when it is closed (the database's clock, the one time of
-- every node), and from when it has decayed to nothing: rows past that are deleted as failures come.
CREATE TABLE arno.login_failures (
    key          text COLLATE "C" PRIMARY KEY,
    score        double precision NOT NULL,
    failed_at    timestamptz NOT NULL,
    closed_until timestamptz NOT NULL,
    forgotten_at timestamptz NOT NULL
);
CREATE INDEX login_failures_forgotten ON arno.login_failures (forgotten_at);
