-- mapper store, schema 2: one finding per damaged object, with its evidence.
--
-- Schema 1 keyed a finding by its source and scrub type too, so one
-- unreadable inode was two findings (the media read and the inode scrub) and
-- a damaged directory two or three.  From schema 2 on, findings.fkey names
-- the damaged object alone (libmap/finding.c, map_finding_object_key, builds
-- the same strings as the CASE below):
--   file|INO|FORK|OFFSET|PHYSICAL|LENGTH   a range of a file's data
--   inode|INO  extent-map|INO  directory|INO  xattr|INO  symlink|INO
--   parent|INO                             its parent pointers or dotdot
--   ag-headers|AG  space-btrees|AG  inode-btrees|AG  refcount-btree|AG
--   cow-staging|AG  log  summary|counters  summary|SCRUBTYPE
--   KIND|AG|PHYSICAL|LENGTH                anything else (inode-chunk, unknown)
-- and every sighting of it is a row of finding_evidence.

-- What showed that a finding's object is damaged: one row per distinct
-- source, scrub type(s) and device range.  scrub is the type that reported
-- it (scrub, event) or the types that check what the range holds (media);
-- physical and length are the unreadable device bytes (NULL: no range).
CREATE TABLE finding_evidence (
    id          INTEGER PRIMARY KEY,
    finding_id  INTEGER NOT NULL REFERENCES findings(id) ON DELETE CASCADE,
    source      TEXT    NOT NULL CHECK (source IN ('media', 'scrub', 'event')),
    scrub       TEXT    NOT NULL DEFAULT '',
    physical    INTEGER,
    length      INTEGER,
    detail      TEXT    NOT NULL DEFAULT '',
    first_seen  INTEGER NOT NULL,
    last_seen   INTEGER NOT NULL,
    last_scan   INTEGER REFERENCES scans(id)
);
CREATE UNIQUE INDEX finding_evidence_once ON finding_evidence
    (finding_id, source, scrub, coalesce(physical, -1), coalesce(length, -1));

-- Schema 1 gave the parent scrub's findings kind "directory", even on files.
UPDATE findings SET kind = 'parent' WHERE source != 'media' AND scrub = 'parent';

-- Each old finding's object key, and the finding that survives for it (the
-- oldest one, so the IDs people wrote down mostly stay valid).
CREATE TABLE migrate_002_keys (
    old_id      INTEGER PRIMARY KEY,
    fs_id       INTEGER NOT NULL,
    nkey        TEXT    NOT NULL,
    keep_id     INTEGER
);
INSERT INTO migrate_002_keys (old_id, fs_id, nkey)
SELECT id, fs_id,
       CASE
       WHEN kind = 'file' AND ino IS NOT NULL THEN
           'file|' || ino || '|' || fork || '|' || coalesce(offset, -1) || '|' ||
           coalesce(physical, -1) || '|' || coalesce(length, -1)
       WHEN kind IN ('inode', 'extent-map', 'directory', 'xattr', 'symlink', 'parent')
            AND ino IS NOT NULL THEN
           kind || '|' || ino
       WHEN kind IN ('ag-headers', 'space-btrees', 'inode-btrees', 'refcount-btree',
                     'cow-staging') AND agno IS NOT NULL THEN
           kind || '|' || agno
       WHEN kind = 'log' THEN 'log'
       WHEN kind = 'summary' THEN
           'summary|' || CASE WHEN scrub IN ('fscounters', 'quotacheck', 'nlinks')
                              THEN 'counters' ELSE scrub END
       ELSE
           kind || '|' || coalesce(agno, -1) || '|' || coalesce(physical, -1) || '|' ||
           coalesce(length, -1)
       END
FROM findings;
CREATE INDEX migrate_002_by_key ON migrate_002_keys (fs_id, nkey);
UPDATE migrate_002_keys SET keep_id =
    (SELECT min(k.old_id) FROM migrate_002_keys k
     WHERE k.fs_id = migrate_002_keys.fs_id AND k.nkey = migrate_002_keys.nkey);

-- Every old finding becomes evidence of the survivor (old findings that
-- differ only in what is no longer part of any key become one row).
INSERT INTO finding_evidence (finding_id, source, scrub, physical, length, detail, first_seen,
                              last_seen, last_scan)
SELECT k.keep_id, f.source, f.scrub, f.physical, f.length, max(f.detail), min(f.first_seen),
       max(f.last_seen), max(f.last_scan)
FROM findings f JOIN migrate_002_keys k ON k.old_id = f.id
GROUP BY k.keep_id, f.source, f.scrub, f.physical, f.length;

-- The survivor's scrub types: the union of its group's comma lists, each once.
CREATE TABLE migrate_002_scrub (keep_id INTEGER NOT NULL, item TEXT NOT NULL);
WITH RECURSIVE split(keep_id, item, rest) AS (
    SELECT k.keep_id, '', f.scrub || ','
    FROM findings f JOIN migrate_002_keys k ON k.old_id = f.id
    UNION ALL
    SELECT keep_id, substr(rest, 1, instr(rest, ',') - 1), substr(rest, instr(rest, ',') + 1)
    FROM split WHERE rest != ''
)
INSERT INTO migrate_002_scrub (keep_id, item)
SELECT DISTINCT keep_id, item FROM split WHERE item != '';

-- The survivor takes what its group knew.  State: open if any was open
-- (the object is still damaged), else ignored if any was (the administrator
-- said so), else the furthest a repair or refetch got.  Source: the most
-- direct evidence, media over event over scrub (map_store_finding_record
-- keeps to the same rule).  Flags: every MAP_OWNER_F_* bit any had.
UPDATE findings SET
    state = (SELECT CASE
                    WHEN sum(g.state = 'open') > 0 THEN 'open'
                    WHEN sum(g.state = 'ignored') > 0 THEN 'ignored'
                    WHEN sum(g.state = 'repaired') > 0 THEN 'repaired'
                    WHEN sum(g.state = 'refetched') > 0 THEN 'refetched'
                    ELSE 'resolved' END
             FROM findings g JOIN migrate_002_keys k ON k.old_id = g.id
             WHERE k.keep_id = findings.id),
    source = (SELECT CASE
                     WHEN sum(g.source = 'media') > 0 THEN 'media'
                     WHEN sum(g.source = 'event') > 0 THEN 'event'
                     ELSE 'scrub' END
              FROM findings g JOIN migrate_002_keys k ON k.old_id = g.id
              WHERE k.keep_id = findings.id),
    flags = (SELECT max(g.flags & 1) | max(g.flags & 2) | max(g.flags & 4) | max(g.flags & 8) |
                    max(g.flags & 16) | max(g.flags & 32) | max(g.flags & 64) |
                    max(g.flags & 128)
             FROM findings g JOIN migrate_002_keys k ON k.old_id = g.id
             WHERE k.keep_id = findings.id),
    scrub = coalesce((SELECT group_concat(item, ',') FROM
                          (SELECT item FROM migrate_002_scrub s
                           WHERE s.keep_id = findings.id ORDER BY rowid)), ''),
    gen = (SELECT max(g.gen) FROM findings g JOIN migrate_002_keys k ON k.old_id = g.id
           WHERE k.keep_id = findings.id),
    mode = (SELECT max(g.mode) FROM findings g JOIN migrate_002_keys k ON k.old_id = g.id
            WHERE k.keep_id = findings.id),
    agno = coalesce(agno, (SELECT max(g.agno) FROM findings g
                           JOIN migrate_002_keys k ON k.old_id = g.id
                           WHERE k.keep_id = findings.id)),
    first_seen = (SELECT min(g.first_seen) FROM findings g
                  JOIN migrate_002_keys k ON k.old_id = g.id WHERE k.keep_id = findings.id),
    last_seen = (SELECT max(g.last_seen) FROM findings g
                 JOIN migrate_002_keys k ON k.old_id = g.id WHERE k.keep_id = findings.id),
    first_scan = (SELECT min(g.first_scan) FROM findings g
                  JOIN migrate_002_keys k ON k.old_id = g.id WHERE k.keep_id = findings.id),
    last_scan = (SELECT max(g.last_scan) FROM findings g
                 JOIN migrate_002_keys k ON k.old_id = g.id WHERE k.keep_id = findings.id)
WHERE id IN (SELECT keep_id FROM migrate_002_keys);

-- Where it is: the first device range of the group, when the survivor had none.
UPDATE findings SET
    (physical, length, fork, offset) =
        (SELECT g.physical, g.length, g.fork, g.offset FROM findings g
         JOIN migrate_002_keys k ON k.old_id = g.id
         WHERE k.keep_id = findings.id AND g.physical IS NOT NULL ORDER BY g.id LIMIT 1)
WHERE physical IS NULL AND id IN (SELECT keep_id FROM migrate_002_keys)
  AND EXISTS (SELECT 1 FROM findings g JOIN migrate_002_keys k ON k.old_id = g.id
              WHERE k.keep_id = findings.id AND g.physical IS NOT NULL);

-- Paths and actions move to the survivor; then the others go.
INSERT OR IGNORE INTO finding_paths (finding_id, path)
SELECT k.keep_id, p.path FROM finding_paths p JOIN migrate_002_keys k ON k.old_id = p.finding_id
WHERE k.keep_id != k.old_id;
UPDATE actions SET finding_id =
    (SELECT k.keep_id FROM migrate_002_keys k WHERE k.old_id = actions.finding_id)
WHERE finding_id IN (SELECT old_id FROM migrate_002_keys WHERE keep_id != old_id);
DELETE FROM finding_paths
WHERE finding_id IN (SELECT old_id FROM migrate_002_keys WHERE keep_id != old_id);
DELETE FROM findings WHERE id IN (SELECT old_id FROM migrate_002_keys WHERE keep_id != old_id);

-- Old keys start with a source name, new ones with a kind: no clash midway.
UPDATE findings SET fkey = (SELECT k.nkey FROM migrate_002_keys k WHERE k.old_id = findings.id);

DROP TABLE migrate_002_scrub;
DROP TABLE migrate_002_keys;
