-- Dealing stored battles walks an index instead of every battle of a run.
-- A deal wants the least-dealt battles a judge has not seen; counting each
-- battle's deals on every `next` cost 60 ms at 20,000 battles and 330 ms at
-- 100,000. Now each battle carries its count, kept by triggers on deals,
-- and whether a side failed, kept by triggers on battles, and one partial
-- index holds the battles that may be dealt, least-dealt first.

-- How many deals of the battle count towards spreading judges over the
-- battles: open and voted ones (skipped and void ones do not).
ALTER TABLE battles ADD COLUMN dealt INTEGER NOT NULL DEFAULT 0;
-- 1 when a side's generation failed: such a battle is never dealt.
ALTER TABLE battles ADD COLUMN failed_side INTEGER NOT NULL DEFAULT 0;

UPDATE battles SET dealt = (SELECT count(*) FROM deals d
    WHERE d.battle_id = battles.id AND d.state IN ('open', 'voted'));
UPDATE battles SET failed_side = 1 WHERE EXISTS (SELECT 1 FROM generations g
    WHERE g.id IN (battles.generation_a, battles.generation_b) AND g.error_kind <> '');

CREATE INDEX battles_to_deal ON battles (dealt, id)
    WHERE source = 'run' AND identity_leak = 0 AND failed_side = 0;

CREATE TRIGGER deals_counted_insert AFTER INSERT ON deals
WHEN NEW.state IN ('open', 'voted')
BEGIN
    UPDATE battles SET dealt = dealt + 1 WHERE id = NEW.battle_id;
END;

CREATE TRIGGER deals_counted_update AFTER UPDATE OF state ON deals
WHEN (OLD.state IN ('open', 'voted')) <> (NEW.state IN ('open', 'voted'))
BEGIN
    UPDATE battles SET dealt = dealt + CASE WHEN NEW.state IN ('open', 'voted') THEN 1 ELSE -1 END
    WHERE id = NEW.battle_id;
END;

CREATE TRIGGER deals_counted_delete AFTER DELETE ON deals
WHEN OLD.state IN ('open', 'voted')
BEGIN
    UPDATE battles SET dealt = dealt - 1 WHERE id = OLD.battle_id;
END;

-- Only run battles are dealt from the store: imported and live battles are
-- left alone, which keeps imports and live judging from paying for this.
CREATE TRIGGER battles_failed_side_insert AFTER INSERT ON battles
WHEN NEW.source = 'run' AND EXISTS (SELECT 1 FROM generations g
    WHERE g.id IN (NEW.generation_a, NEW.generation_b) AND g.error_kind <> '')
BEGIN
    UPDATE battles SET failed_side = 1 WHERE id = NEW.id;
END;

CREATE TRIGGER battles_failed_side_update AFTER UPDATE OF generation_a, generation_b ON battles
WHEN NEW.source = 'run'
BEGIN
    UPDATE battles SET failed_side = EXISTS (SELECT 1 FROM generations g
        WHERE g.id IN (NEW.generation_a, NEW.generation_b) AND g.error_kind <> '')
    WHERE id = NEW.id;
END;
