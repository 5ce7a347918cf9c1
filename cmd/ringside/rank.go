package main

import "context"

// rankCmd is a placeholder until its issue lands; it is replaced, not extended.
func (m *Main) rankCmd(ctx context.Context, args []string) error {
	fs := m.newFlagSet("rank", "", "Not built yet.")
	if err := m.parseFlags(fs, args); err != nil {
		return err
	}
	return notBuilt("rank")
}
