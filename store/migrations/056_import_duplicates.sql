-- Importing a second file that holds judgments already imported from an
-- earlier one finds them by question, models and judge
-- (store/importdup.go); this index makes that a lookup, not a scan.
CREATE INDEX battles_imported_question ON battles (prompt_id, model_a, model_b) WHERE source = 'import';
