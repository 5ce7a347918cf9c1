-- The outputs browser shows, for one generation, the battles it was in:
-- battles were only ever read by id, run or prompt until now.
CREATE INDEX battles_generation_a ON battles (generation_a);
CREATE INDEX battles_generation_b ON battles (generation_b);
