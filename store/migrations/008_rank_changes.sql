-- A leaderboard kept in memory reads only the votes appended since its last
-- read. That is exact only while the votes it has read stay as they were:
-- this counter moves whenever something else changes what a stored vote
-- counts for (a vote updated or deleted, a battle it is on flagged as an
-- identity leak or moved to another attribute, a judge renamed, a weight
-- changed), and a reader that sees it move reads everything again.
-- A judgment inserted with its vote (the only way ringside stores them)
-- gives the weight of a vote that is itself new, so inserts do not count.
CREATE TABLE rank_changes (n INTEGER NOT NULL) STRICT;
INSERT INTO rank_changes (n) VALUES (0);

CREATE TRIGGER rank_changes_vote_update AFTER UPDATE ON votes
BEGIN
    UPDATE rank_changes SET n = n + 1;
END;

CREATE TRIGGER rank_changes_vote_delete AFTER DELETE ON votes
BEGIN
    UPDATE rank_changes SET n = n + 1;
END;

CREATE TRIGGER rank_changes_battle_update AFTER UPDATE OF model_a, model_b, category, kind, tags, identity_leak, source, extra ON battles
WHEN (NEW.model_a <> OLD.model_a OR NEW.model_b <> OLD.model_b OR NEW.category <> OLD.category
    OR NEW.kind <> OLD.kind OR NEW.tags <> OLD.tags OR NEW.identity_leak <> OLD.identity_leak
    OR NEW.source <> OLD.source OR NEW.extra IS NOT OLD.extra)
    AND EXISTS (SELECT 1 FROM votes WHERE battle_id = NEW.id)
BEGIN
    UPDATE rank_changes SET n = n + 1;
END;

CREATE TRIGGER rank_changes_judge_update AFTER UPDATE OF kind, name ON judges
WHEN NEW.kind <> OLD.kind OR NEW.name <> OLD.name
BEGIN
    UPDATE rank_changes SET n = n + 1;
END;

CREATE TRIGGER rank_changes_weight_update AFTER UPDATE OF vote_id, weight ON llm_judgments
WHEN NEW.vote_id IS NOT OLD.vote_id OR NEW.weight <> OLD.weight
BEGIN
    UPDATE rank_changes SET n = n + 1;
END;

CREATE TRIGGER rank_changes_weight_delete AFTER DELETE ON llm_judgments
WHEN OLD.vote_id IS NOT NULL AND OLD.weight <> 1
BEGIN
    UPDATE rank_changes SET n = n + 1;
END;
