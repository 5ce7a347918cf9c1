package main

import "context"

// inviteCmd is a placeholder until its issue lands; it is replaced, not extended.
func (m *Main) inviteCmd(ctx context.Context, args []string) error {
	fs := m.newFlagSet("invite", "", "Not built yet.")
	if err := m.parseFlags(fs, args); err != nil {
		return err
	}
	return notBuilt("invite")
}
