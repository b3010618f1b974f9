-- mapper store, schema 1.
-- Filesystems are keyed by their XFS UUID; everything else hangs off them.

CREATE TABLE filesystems (
    id          INTEGER PRIMARY KEY,
    uuid        TEXT    NOT NULL UNIQUE,
    label       TEXT    NOT NULL DEFAULT '',
    mountpoint  TEXT    NOT NULL DEFAULT '',   -- where it was last seen
    device      TEXT    NOT NULL DEFAULT '',
    model       TEXT    NOT NULL DEFAULT '',
    serial      TEXT    NOT NULL DEFAULT '',
    wwn         TEXT    NOT NULL DEFAULT '',
    blocksize   INTEGER NOT NULL DEFAULT 0,
    agcount     INTEGER NOT NULL DEFAULT 0,
    datablocks  INTEGER NOT NULL DEFAULT 0,
    rmapbt      INTEGER NOT NULL DEFAULT 0,
    reflink     INTEGER NOT NULL DEFAULT 0,
    parent      INTEGER NOT NULL DEFAULT 0,
    first_seen  INTEGER NOT NULL,              -- unix seconds
    last_seen   INTEGER NOT NULL
);

-- One row per scan; an interrupted one is resumed from its checkpoint.
CREATE TABLE scans (
    id             INTEGER PRIMARY KEY,
    fs_id          INTEGER NOT NULL REFERENCES filesystems(id),
    state          TEXT    NOT NULL
                   CHECK (state IN ('running', 'interrupted', 'complete', 'failed')),
    do_metadata    INTEGER NOT NULL,
    do_media       INTEGER NOT NULL,
    phase          TEXT    NOT NULL DEFAULT 'metadata'
                   CHECK (phase IN ('metadata', 'media', 'done')),
    started        INTEGER NOT NULL,
    finished       INTEGER,
    seconds        REAL    NOT NULL DEFAULT 0, -- time spent, over all runs
    media_position INTEGER NOT NULL DEFAULT 0, -- every written byte below is verified
    media_total    INTEGER NOT NULL DEFAULT 0,
    media_done     INTEGER NOT NULL DEFAULT 0,
    objects        INTEGER NOT NULL DEFAULT 0, -- metadata objects scrubbed
    runs           INTEGER NOT NULL DEFAULT 1,
    pid            INTEGER NOT NULL DEFAULT 0,
    user           TEXT    NOT NULL DEFAULT '',
    error          TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX scans_by_fs ON scans(fs_id, id);

-- A damaged thing: a bad device range and one of its owners (source media
-- or event), or an object the kernel's scrub found broken (source scrub).
-- fkey identifies it across scans: seen again, it only updates last_seen.
CREATE TABLE findings (
    id          INTEGER PRIMARY KEY,
    fs_id       INTEGER NOT NULL REFERENCES filesystems(id),
    fkey        TEXT    NOT NULL,
    source      TEXT    NOT NULL CHECK (source IN ('media', 'scrub', 'event')),
    kind        TEXT    NOT NULL,              -- file, directory, inode-btrees, ...
    physical    INTEGER,                       -- device bytes (media)
    length      INTEGER,
    ino         INTEGER,                       -- inode owners
    gen         INTEGER,
    mode        INTEGER,
    fork        TEXT    NOT NULL DEFAULT '' CHECK (fork IN ('', 'data', 'attr')),
    offset      INTEGER,                       -- byte offset in the fork
    agno        INTEGER,
    flags       INTEGER NOT NULL DEFAULT 0,    -- MAP_OWNER_F_*
    scrub       TEXT    NOT NULL DEFAULT '',   -- scrub types that check/repair it
    detail      TEXT    NOT NULL DEFAULT '',   -- scrub flags, errno text
    state       TEXT    NOT NULL DEFAULT 'open'
                CHECK (state IN ('open', 'refetched', 'repaired', 'ignored', 'resolved')),
    first_seen  INTEGER NOT NULL,
    last_seen   INTEGER NOT NULL,
    first_scan  INTEGER REFERENCES scans(id),
    last_scan   INTEGER REFERENCES scans(id),
    UNIQUE (fs_id, fkey)
);
CREATE INDEX findings_by_state ON findings(fs_id, state);

-- Every name of a finding's inode, as bytes (names need not be UTF-8).
CREATE TABLE finding_paths (
    finding_id  INTEGER NOT NULL REFERENCES findings(id) ON DELETE CASCADE,
    path        BLOB    NOT NULL,
    PRIMARY KEY (finding_id, path)
);

-- What was done about findings (or a filesystem), by whom, and how it went.
CREATE TABLE actions (
    id          INTEGER PRIMARY KEY,
    fs_id       INTEGER NOT NULL REFERENCES filesystems(id),
    finding_id  INTEGER REFERENCES findings(id),
    at          INTEGER NOT NULL,
    action      TEXT    NOT NULL,              -- scan, repair, refetch, resolve, ignore
    user        TEXT    NOT NULL DEFAULT '',
    outcome     TEXT    NOT NULL DEFAULT '',   -- repaired, not-needed, unsupported, failed, ...
    detail      TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX actions_by_fs ON actions(fs_id, at);

-- Errors the kernel reported as they happened (mapperd).
CREATE TABLE events (
    id          INTEGER PRIMARY KEY,
    fs_id       INTEGER REFERENCES filesystems(id),
    at          INTEGER NOT NULL,
    source      TEXT    NOT NULL,              -- fanotify, kmsg
    ino         INTEGER,
    gen         INTEGER,
    error       INTEGER,
    detail      TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX events_by_fs ON events(fs_id, at);
