-- Checks that call a model (llm_rubric) cost money: what one result cost,
-- summed over its calls to the grader model. Other checks cost nothing.
ALTER TABLE check_results ADD COLUMN cost_usd REAL NOT NULL DEFAULT 0 CHECK (cost_usd >= 0);
