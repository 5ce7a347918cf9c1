-- Adaptive pairing (judging.pairing). Each deal keeps the probability with
-- which its pair was drawn, so that a board can weigh its vote by the
-- inverse and undo the adaptive design; NULL when the battle was not drawn
-- by pair (stored battles dealt least-dealt first, deals made before).
ALTER TABLE deals ADD COLUMN propensity REAL;

-- Adaptive dealing of stored battles picks a pair first, then the
-- least-dealt of its battles the judge has not seen: the same walk as
-- battles_to_deal, within one pair (each order of the pair is one range).
CREATE INDEX battles_pair_to_deal ON battles (model_a, model_b, dealt, id)
    WHERE source = 'run' AND identity_leak = 0 AND failed_side = 0;
