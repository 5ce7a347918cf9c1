package main

import "context"

// compareCmd is a placeholder until its issue lands; it is replaced, not extended.
func (m *Main) compareCmd(ctx context.Context, args []string) error {
	fs := m.newFlagSet("compare", "", "Not built yet.")
	if err := m.parseFlags(fs, args); err != nil {
		return err
	}
	return notBuilt("compare")
}
