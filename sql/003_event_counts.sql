-- mapper store, schema 3: how many error reports each filesystem received.
--
-- The events table keeps only its newest rows (EVENTS_KEPT, libmap/store.c),
-- so a count of its rows stops growing once it is full, in the very storm a
-- monitor should see.  event_counts only grows; a trigger keeps it, so every
-- writer of events (mapperd, its spool replay) is counted without knowing.
-- mapctl metrics reports it as mapper_events_total.
CREATE TABLE event_counts (
    fs_id       INTEGER NOT NULL,              -- 0: no filesystem known
    source      TEXT    NOT NULL,              -- fanotify, kmsg
    received    INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (fs_id, source)
);

-- What the store still holds is the best count of what came before.
INSERT INTO event_counts (fs_id, source, received)
SELECT coalesce(fs_id, 0), source, count(*) FROM events GROUP BY coalesce(fs_id, 0), source;

CREATE TRIGGER events_counted AFTER INSERT ON events
BEGIN
    INSERT OR IGNORE INTO event_counts (fs_id, source) VALUES (coalesce(new.fs_id, 0), new.source);
    UPDATE event_counts SET received = received + 1
    WHERE fs_id = coalesce(new.fs_id, 0) AND source = new.source;
END;
