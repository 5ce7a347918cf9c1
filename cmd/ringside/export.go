package main

import "context"

// exportCmd is a placeholder until its issue lands; it is replaced, not extended.
func (m *Main) exportCmd(ctx context.Context, args []string) error {
	fs := m.newFlagSet("export", "", "Not built yet.")
	if err := m.parseFlags(fs, args); err != nil {
		return err
	}
	return notBuilt("export")
}
