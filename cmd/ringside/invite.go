package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/server"
)

// inviteCmd creates a judge and prints its judge-page link once; it also
// lists and revokes invites.
func (m *Main) inviteCmd(ctx context.Context, args []string) error {
	fs := m.newFlagSet("invite", "--name N [--quota K] | --list | --revoke ID  [--config F] [--db F]", `
Creates a human judge and prints the link to their judge page,
BASE/judge?token=T, where BASE is server.public_url (else http://server.addr).
The token is shown this once and stored only hashed: keep the link, or
create another invite. --list shows every invite with its votes; --revoke
disables an invite at once (its votes stay). The same is in the JSON API:
POST, GET /api/admin/judges and DELETE /api/admin/judges/ID.`)
	name := fs.String("name", "", "the judge's name, shown in votes as human:NAME")
	quota := fs.Int("quota", 0, "battles the judge is asked for (0 = no limit)")
	list := fs.Bool("list", false, "list the invites")
	revoke := fs.String("revoke", "", "revoke the invite of the judge with this id")
	cfgPath := fs.String("config", "", "config file (default: $RINGSIDE_CONFIG, else the built-in demo)")
	dbPath := fs.String("db", "", dbFlagHelp)
	if err := m.parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 || countSet(*name != "", *list, *revoke != "") != 1 {
		fs.Usage()
		return errUsage
	}
	cfg, err := m.loadConfig(*cfgPath)
	if err != nil {
		return err
	}
	db, err := openDB(ctx, cfg, *dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	switch {
	case *list:
		invites, err := db.Invites(ctx, false)
		if err != nil {
			return err
		}
		w := tabwriter.NewWriter(m.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "ID\tNAME\tQUOTA\tVOTES\tSTATUS")
		for _, inv := range invites {
			status := "active"
			if inv.RevokedAt != nil {
				status = "revoked " + inv.RevokedAt.Format("2006-01-02")
			}
			fmt.Fprintf(w, "%s\t%s\t%d\t%d\t%s\n", inv.ID, inv.Name, inv.Quota, inv.Votes, status)
		}
		return w.Flush()
	case *revoke != "":
		if err := db.RevokeJudge(ctx, *revoke); err != nil {
			return err
		}
		fmt.Fprintf(m.Stdout, "revoked %s: its link and its next vote are refused\n", *revoke)
		return db.Close()
	}
	if *quota < 0 {
		return ringside.FieldError("quota", "must not be negative")
	}
	inv, err := server.CreateInvite(ctx, db, *name, *quota, publicURL(cfg.Server.PublicURL, cfg.Server.Addr))
	if err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "judge %s (id %s", inv.Judge.Name, inv.Judge.ID)
	if inv.Judge.Quota > 0 {
		fmt.Fprintf(m.Stdout, ", quota %d", inv.Judge.Quota)
	}
	fmt.Fprintf(m.Stdout, ")\n%s\n(the link is shown once: send it to the judge now)\n", inv.URL)
	return db.Close()
}

func countSet(flags ...bool) int {
	n := 0
	for _, f := range flags {
		if f {
			n++
		}
	}
	return n
}
