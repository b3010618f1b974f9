-- mapper store, schema 4: the finding state "zeroed".
--
-- mapctl repair --offline overwrites the unreadable sectors of a finding
-- with zeros so that xfs_repair can run; the object's content is gone, but
-- those sectors now read well.  A later scan (mapctl scan, or mapperd's
-- scheduled or resumed ones) would see no error there and resolve the
-- finding although nothing was restored.  A zeroed finding is left alone by
-- scans: only a verified refetch or mapctl resolve closes it.
--
-- SQLite cannot change a CHECK constraint in place: the table is made again
-- with the new one and its rows copied, keeping every id (finding_paths,
-- finding_evidence and actions refer to them).  Migrations run before
-- foreign keys are turned on (libmap/store.c), as the rebuild requires.
CREATE TABLE findings_004 (
    id          INTEGER PRIMARY KEY,
    fs_id       INTEGER NOT NULL REFERENCES filesystems(id),
    fkey        TEXT    NOT NULL,
    source      TEXT    NOT NULL CHECK (source IN ('media', 'scrub', 'event')),
    kind        TEXT    NOT NULL,
    physical    INTEGER,
    length      INTEGER,
    ino         INTEGER,
    gen         INTEGER,
    mode        INTEGER,
    fork        TEXT    NOT NULL DEFAULT '' CHECK (fork IN ('', 'data', 'attr')),
    offset      INTEGER,
    agno        INTEGER,
    flags       INTEGER NOT NULL DEFAULT 0,
    scrub       TEXT    NOT NULL DEFAULT '',
    detail      TEXT    NOT NULL DEFAULT '',
    state       TEXT    NOT NULL DEFAULT 'open'
                CHECK (state IN ('open', 'refetched', 'repaired', 'ignored', 'resolved',
                                 'zeroed')),
    first_seen  INTEGER NOT NULL,
    last_seen   INTEGER NOT NULL,
    first_scan  INTEGER REFERENCES scans(id),
    last_scan   INTEGER REFERENCES scans(id),
    UNIQUE (fs_id, fkey)
);
INSERT INTO findings_004 (id, fs_id, fkey, source, kind, physical, length, ino, gen, mode, fork,
                          offset, agno, flags, scrub, detail, state, first_seen, last_seen,
                          first_scan, last_scan)
SELECT id, fs_id, fkey, source, kind, physical, length, ino, gen, mode, fork, offset, agno, flags,
       scrub, detail, state, first_seen, last_seen, first_scan, last_scan
FROM findings;
DROP TABLE findings;
ALTER TABLE findings_004 RENAME TO findings;
CREATE INDEX findings_by_state ON findings(fs_id, state);
