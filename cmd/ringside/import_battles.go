package main

import "context"

// importBattles is a placeholder until the ranking issue lands; it is
// replaced, not extended.
func (m *Main) importBattles(ctx context.Context, file, cfgPath, dbPath string) error {
	return notBuilt("import battles")
}
